import ImageProcessing
import ImageTables
import Vips

/// One fuzz input: the bytes of a photo. The harness runs what a URL source and
/// `imgtool apply` run on untrusted bytes: the header probe on growing prefixes (as a
/// download arrives), then the one decode of `apply` for `fill(crop: centre)` and `fit`
/// at 64x64, the pipelines and the rasteriser. A refusal is a typed error and fine; any
/// trap, sanitizer report, leak past the limit or hang is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  for length in [HeaderProbe.signatureBytes, 512, size] where length <= size {
    _ = try? HeaderProbe.probe(Array(bytes.prefix(length)), name: "fuzz")
  }
  for (pipeline, context) in Harness.consumers {
    guard
      let source = try? SourceDecoder.decode(
        bytes: bytes, name: "fuzz", for: [(pipeline, context)], limits: Harness.limits)
    else { continue }
    var context = context
    context.geometry = source.geometry
    guard let processed = try? pipeline.process(source.image, context: context),
      let raster = try? Rasterizer.prepare(
        processed, style: .bgra32, background: RGBA(255, 255, 255),
        slotWidth: context.pixelWidth, slotHeight: context.pixelHeight)
    else { continue }
    _ = raster.bytes().bytes.reduce(0, &+)
  }
  return 0
}

enum Harness {
  /// Smaller than the library's default limits, so that one input cannot make a
  /// decode past libFuzzer's memory limit: a finding here is a trap, not a big photo.
  static let limits = ImageLimits(maxPixels: 16_000_000, maxDimension: 16_384)

  nonisolated(unsafe) static let consumers: [SourceDecoder.Consumer] = {
    try! Vips.start()
    let registry = ProcessorRegistry.withBuiltIns()
    return ["fill(crop: centre)", "fit"].map { spec in
      (
        try! registry.pipeline(spec),
        ProcessingContext(formatName: "fuzz", family: "fuzz", pixelWidth: 64, pixelHeight: 64)
      )
    }
  }()
}

/// SwiftPM links an executable's entry point as `<Target>_main`; here it hands over to
/// libFuzzer's driver (linked by `-sanitize=fuzzer`).
@_cdecl("DecodeFuzz_main")
public func decodeFuzzMain(
  _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
  var count = argc
  var arguments = argv
  return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzOneInput(data, size) }
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
  _ argc: UnsafeMutablePointer<Int32>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32
) -> Int32

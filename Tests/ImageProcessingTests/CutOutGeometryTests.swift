import Foundation
import ImageTables
import ImageToolPluginABI
import Testing
import Vips

@testable import ImageProcessing

/// The part of its input the cut-out processors below keep: a tall strip (a third of
/// the width, the whole height), so that a fill computed with the photo's geometry
/// instead of the strip's would stretch it sideways.
func cutOutWindow(of image: VipsImage) -> PixelRect {
  PixelRect(x: image.width / 4, y: 0, width: image.width / 3, height: image.height)
}

/// A processor in Swift that hands a new image to another: it cuts a strip out of its
/// input and calls the built-in fill on it, as a face crop would.
struct CutOutThenFill: ImageProcessor {
  var identifier: String { "cutOutThenFill@1" }

  func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
    let window = cutOutWindow(of: image)
    let cut = try image.cropped(
      left: window.x, top: window.y, width: window.width, height: window.height)
    return try ImageProcessors.Fill(crop: .centre).process(cut, context: context)
  }
}

/// A processor that hands back an image of its own making of the same size (the photo
/// turned upside down): what follows it sees that image's pixels, not the photo's.
struct UpsideDown: ImageProcessor {
  var identifier: String { "upsideDown@1" }

  func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
    try image.rotated(quarterTurns: 2)
  }
}

/// A version-2 plugin written against the C interface alone, as one in C would be:
/// `cutOutProbe(cut: true)` cuts the strip out of its input and runs the host's
/// "fill(crop: centre)" on the cut-out; `cut: false` runs it on the input itself.
enum CutOutPlugin {
  nonisolated(unsafe) static let name = strdup("cutOutProbe")
  nonisolated(unsafe) static let summary = strdup("Cuts a strip and fills it (a test).")
  nonisolated(unsafe) static let cutName = strdup("cut")
  nonisolated(unsafe) static let booleanKind = strdup("boolean")
  nonisolated(unsafe) static let cutDefault = strdup("true")
  nonisolated(unsafe) static let fillSpec = strdup("fill(crop: centre)")

  static let register: ImageToolPluginRegister = { host in
    guard let host, host.pointee.abi_version == 2, let register = host.pointee.register_processor
    else { return 1 }
    var parameter = ImageToolParameter(
      name: cutName, kind: booleanKind, default_value: cutDefault, minimum: 0, maximum: 0,
      summary: summary)
    var error = [CChar](repeating: 0, count: 256)
    return withUnsafePointer(to: &parameter) { parameters in
      var definition = ImageToolProcessorDefinition(
        name: name, version: 1, summary: summary, parameters: parameters, parameter_count: 1,
        create: { arguments, count, _, _ in
          guard let arguments, count == 1, let value = arguments[0].value else { return nil }
          return UnsafeMutableRawPointer(strdup(value))
        },
        process: { state, input, output, context, error, errorSize in
          guard let state, let input, let context, let run = context.pointee.run_pipeline
          else { return 1 }
          let cut = String(cString: state.assumingMemoryBound(to: CChar.self)) == "true"
          guard cut else {
            return run(context.pointee.host_state, fillSpec, input, output, error, errorSize)
          }
          let image = VipsImage(borrowing: input)
          let window = cutOutWindow(of: image)
          guard
            let strip = try? image.cropped(
              left: window.x, top: window.y, width: window.width, height: window.height)
          else { return 1 }
          return strip.withUnsafeVipsImagePointer {
            run(context.pointee.host_state, fillSpec, $0, output, error, errorSize)
          }
        },
        destroy: { state in free(state) })
      return register(host.pointee.host, &definition, &error, error.count)
    }
  }

  static func registry() throws -> ProcessorRegistry {
    let registry = ProcessorRegistry.withBuiltIns()
    let names = try PluginLoader.register(
      path: "cutOutProbe.so", version: { 2 }, entry: register, into: registry)
    #expect(names == ["cutOutProbe"])
    return registry
  }
}

/// A processor that hands the host a new image gets geometry that describes that image:
/// a fill of a cut-out covers the format with the cut-out, unstretched, as libvips's
/// thumbnail of the cut-out does, whatever the family's decode was shrunk to.
@Suite("Geometry of the images processors make")
struct CutOutGeometryTests {
  /// hubble.jpg (1000x872) for a 100x50 format: decoded at a quarter of its size.
  static let photo = Photos.bundled("hubble.jpg")
  static let box = (width: 100, height: 50)

  /// The decode of `photo` a fill of `pipeline` makes, and the context it runs in.
  static func decode(for pipeline: Pipeline) throws -> (VipsImage, ProcessingContext) {
    let base = context(box.width, box.height)
    let decoded = try SourceDecoder.decode(file: photo, for: [(pipeline, base)])
    var processing = base
    processing.geometry = decoded.geometry
    return (decoded.image, processing)
  }

  /// What libvips makes of the same strip: cut from the same decode, then thumbnail
  /// cropped from the centre to the box.
  static func libvipsReference(_ decode: VipsImage) throws -> VipsImage {
    let window = cutOutWindow(of: decode)
    return try decode.cropped(
      left: window.x, top: window.y, width: window.width, height: window.height
    ).thumbnail(width: box.width, height: box.height, crop: .centre)
  }

  /// The largest difference of any sample between two images of the same size.
  static func largestDifference(_ image: VipsImage, _ reference: VipsImage) throws -> Int {
    try #require(
      (image.width, image.height, image.bands)
        == (reference.width, reference.height, reference.bands))
    let (got, want) = (try image.writePixels(), try reference.writePixels())
    try #require(got.count == want.count)
    return zip(got, want).map { abs(Int($0) - Int($1)) }.max() ?? 0
  }

  @Test func theDecodeIsShrunkOnLoadSoTheGeometryIsNotTheImagesOwn() throws {
    let (decode, processing) = try Self.decode(for: Pipeline(spec: "fill", processors: []))
    #expect((decode.width, decode.height) == (250, 218))
    #expect(
      processing.geometry == SourceGeometry(photoWidth: 1000, photoHeight: 872, imageScale: 0.25))
  }

  @Test func aSwiftProcessorThatCutsAndFillsIsNotStretched() throws {
    let pipeline = Pipeline(spec: "cutOutThenFill", processors: [CutOutThenFill()])
    let (decode, processing) = try Self.decode(for: pipeline)
    #expect(processing.geometry?.imageScale == 0.25)
    let avatar = try pipeline.process(decode, context: processing)
    let reference = try Self.libvipsReference(decode)
    #expect((avatar.width, avatar.height) == Self.box)
    #expect(try Self.largestDifference(avatar, reference) <= 1)
  }

  @Test func aPluginThatCutsAndRunsTheHostsFillIsNotStretched() throws {
    let pipeline = try CutOutPlugin.registry().pipeline("cutOutProbe")
    let (decode, processing) = try Self.decode(for: pipeline)
    #expect(processing.geometry?.imageScale == 0.25)
    let avatar = try pipeline.process(decode, context: processing)
    let reference = try Self.libvipsReference(decode)
    #expect((avatar.width, avatar.height) == Self.box)
    #expect(try Self.largestDifference(avatar, reference) <= 1)
  }

  /// The decode itself keeps its geometry through the plugin: the host's fill of the
  /// plugin's own input is libvips's thumbnail of the photo, byte for byte, shrunk on
  /// load as the built-in's is.
  @Test func aPluginThatFillsItsOwnInputGetsThePhotosGeometry() throws {
    let registry = try CutOutPlugin.registry()
    let pipeline = try registry.pipeline("cutOutProbe(cut: false)")
    let (decode, processing) = try Self.decode(for: pipeline)
    #expect(processing.geometry?.imageScale == 0.25)
    let avatar = try pipeline.process(decode, context: processing)
    let thumbnail = try VipsImage.thumbnail(
      file: Self.photo, width: Self.box.width, height: Self.box.height,
      options: ThumbnailOptions(crop: .centre))
    #expect((avatar.width, avatar.height) == Self.box)
    #expect(try avatar.writePixels() == thumbnail.writePixels())
    let builtIn = try registry.pipeline("fill(crop: centre)").process(decode, context: processing)
    #expect(try avatar.writePixels() == builtIn.writePixels())
  }

  /// A step that hands back an image of its own making ends the photo's geometry: a
  /// crop in pixels after it is a crop of that image's pixels, not of the photo's.
  @Test func aStepMakingItsOwnImageEndsThePhotosGeometry() throws {
    let crop = try registry.pipeline("crop(x: 10, y: 20, width: 100, height: 60)")
    let pipeline = Pipeline(
      spec: "upsideDown | crop(...)", processors: [UpsideDown()] + crop.processors)
    let (decode, processing) = try Self.decode(for: Pipeline(spec: "fill", processors: []))
    let cropped = try pipeline.process(decode, context: processing)
    let reference = try decode.rotated(quarterTurns: 2).cropped(
      left: 10, top: 20, width: 100, height: 60)
    #expect(try Self.largestDifference(cropped, reference) == 0)
  }

  /// A step that keeps the photo's pixels (sharpen) keeps its geometry: the crop is in
  /// the photo's pixels, a quarter as many in the decode.
  @Test func aStepKeepingThePixelsKeepsThePhotosGeometry() throws {
    let pipeline = try registry.pipeline("sharpen | crop(x: 40, y: 80, width: 400, height: 240)")
    let (decode, processing) = try Self.decode(for: Pipeline(spec: "fill", processors: []))
    let cropped = try pipeline.process(decode, context: processing)
    #expect((cropped.width, cropped.height) == (100, 60))
    let reference = try registry.pipeline("sharpen").process(decode, context: processing)
      .cropped(left: 10, top: 20, width: 100, height: 60)
    #expect(try Self.largestDifference(cropped, reference) == 0)
  }

  /// The attention window a fill of the decode left in the fill's memo is the decode's:
  /// a fill of a cut-out whose window has the same size (full-width rows of the decode,
  /// 250x150, filled to 100x50: a 250x125 window in both) finds its own, as a fill of the
  /// cut-out with no memo does.
  @Test func aFillOfACutOutFindsItsOwnAttentionWindow() throws {
    let (decode, base) = try Self.decode(for: Pipeline(spec: "fill", processors: []))
    var processing = base
    processing.memo = ProcessingMemo()
    _ = try registry.pipeline("fill(crop: attention)").process(decode, context: processing)
    let rows = try decode.cropped(left: 0, top: 68, width: 250, height: 150)
    let fill = ImageProcessors.Fill(crop: .attention)
    let avatar = try fill.process(rows, context: processing)
    let alone = try fill.process(rows, context: context(Self.box.width, Self.box.height))
    #expect((avatar.width, avatar.height) == Self.box)
    #expect(try avatar.writePixels() == alone.writePixels())
  }

  /// Outside a pipeline, a context set for the decode describes only an image of the
  /// decode's size.
  @Test func aContextDescribesTheImageItWasBoundTo() throws {
    let (decode, processing) = try Self.decode(for: Pipeline(spec: "fill", processors: []))
    let strip = try decode.cropped(left: 0, top: 0, width: 80, height: 218)
    #expect(processing.describes(decode))
    #expect(!processing.describes(strip))
    #expect(processing.geometry(of: strip) == SourceGeometry(photoWidth: 80, photoHeight: 218))
    let bound = processing.bound(to: decode)
    #expect(bound.describes(decode.withUnsafeVipsImagePointer { VipsImage(borrowing: $0) }))
    #expect(!bound.describes(try decode.cropped(left: 0, top: 0, width: 250, height: 218)))
    #expect(bound.bound(to: strip).geometry == nil)
  }
}

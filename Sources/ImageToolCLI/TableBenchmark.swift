import Foundation
import ImageTables
import Vips

/// `imgtool bench tables`: how long a table hit takes, beside the two things people
/// do without a table: read a raw file per entry, or decode a PNG per entry.
struct TableBenchmark {
  var entries = 10_000
  var hits = 100_000
  var rawReads = 20_000
  var pngFiles = 1_000
  var pngReads = 2_000
  var side = 64

  struct Result {
    var entries: Int
    var side: Int
    var hit: LatencySamples
    var rawFile: LatencySamples
    var pngDecode: LatencySamples
    var timerOverhead: LatencySamples
    var allocatedBytesPerHit: Double?
    var controlBytesPerAllocation: Double?

    var rawFileRatio: Double { rawFile.median / hit.median }
    var pngDecodeRatio: Double { pngDecode.median / hit.median }
  }

  func run(progress: (String) -> Void) throws -> Result {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("imgtool-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    var generator = SystemRandomNumberGenerator()
    let ids = (0..<entries).map { "photos/\($0).jpg" }
    let bytesPerEntry = side * side * 4

    progress("filling a table of \(entries) entries of \(side)x\(side) bgra32")
    let format = try ImageFormat(
      name: "bench", family: "bench", width: side, height: side, style: .bgra32,
      maximumCount: entries)
    let table = try ImageTable(format: format, directory: folder)
    for (number, id) in ids.enumerated() {
      try table.write(entityID: id, sourceVersion: "v1") { canvas in
        memset(canvas.bytes.baseAddress!, Int32(truncatingIfNeeded: number), canvas.bytes.count)
      }
    }

    progress("writing \(entries) raw files of \(bytesPerEntry) bytes")
    let rawFolder = folder.appendingPathComponent("raw")
    try FileManager.default.createDirectory(at: rawFolder, withIntermediateDirectories: true)
    let rawPaths = (0..<entries).map { rawFolder.appendingPathComponent("\($0).raw").path }
    let rawBytes = Data(repeating: 0x7F, count: bytesPerEntry)
    for path in rawPaths { try rawBytes.write(to: URL(fileURLWithPath: path)) }

    progress("encoding \(pngFiles) PNG files")
    let pngPaths = try makePNGs(in: folder.appendingPathComponent("png"), generator: &generator)

    progress("timing \(hits) table hits")
    var timer = LatencySamples(capacity: hits)
    for _ in 0..<hits {
      let start = LatencySamples.now()
      timer.append(LatencySamples.now() &- start)
    }
    var hit = LatencySamples(capacity: hits)
    let order = (0..<hits).map { _ in Int.random(in: 0..<entries, using: &generator) }
    var sink: UInt8 = 0
    for index in order {
      let id = ids[index]
      let start = LatencySamples.now()
      let bitmap = table.bitmap(entityID: id, sourceVersion: "v1")
      sink &+= bitmap?.bytes[0] ?? 1
      hit.append(LatencySamples.now() &- start)
    }
    // Allocation: keep every object a hit returns, so anything a hit allocated stays
    // on the heap; beside it, a control that allocates one small object a step.
    let allocated = Self.heapGrowthPerStep(steps: order.count) { step in
      table.bitmap(entityID: ids[order[step]], sourceVersion: "v1")
    }
    let control = Self.heapGrowthPerStep(steps: order.count) { _ in HeapProbe() }

    progress("timing \(rawReads) raw file reads")
    var raw = LatencySamples(capacity: rawReads)
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: bytesPerEntry, alignment: 64)
    defer { buffer.deallocate() }
    for _ in 0..<rawReads {
      let path = rawPaths[Int.random(in: 0..<entries, using: &generator)]
      let start = LatencySamples.now()
      let descriptor = open(path, O_RDONLY)
      let count = read(descriptor, buffer, bytesPerEntry)
      close(descriptor)
      sink &+= buffer.load(as: UInt8.self)
      raw.append(LatencySamples.now() &- start)
      guard count == bytesPerEntry else { throw BenchmarkError.shortRead(path: path) }
    }

    progress("timing \(pngReads) PNG decodes with libvips")
    var png = LatencySamples(capacity: pngReads)
    for _ in 0..<pngReads {
      let path = pngPaths[Int.random(in: 0..<pngPaths.count, using: &generator)]
      let start = LatencySamples.now()
      let pixels = try VipsImage(file: path).writePixels()
      sink &+= pixels[0]
      png.append(LatencySamples.now() &- start)
    }
    withExtendedLifetime(sink) {}
    return Result(
      entries: entries, side: side, hit: hit, rawFile: raw, pngDecode: png, timerOverhead: timer,
      allocatedBytesPerHit: allocated, controlBytesPerAllocation: control)
  }

  /// A 16-byte class instance: what one small allocation costs on the heap.
  final class HeapProbe {
    var value = 0
  }

  /// Median over three runs of the heap's growth per step while every step's result is
  /// kept alive; nil where the heap cannot be measured.
  static func heapGrowthPerStep(steps: Int, _ step: (Int) -> AnyObject?) -> Double? {
    var runs: [Double] = []
    for _ in 0..<3 {
      var kept: [AnyObject?] = []
      kept.reserveCapacity(steps)
      guard let before = HeapUsage.bytesInUse() else { return nil }
      for index in 0..<steps { kept.append(step(index)) }
      guard let after = HeapUsage.bytesInUse() else { return nil }
      runs.append(Double(after - before) / Double(steps))
      withExtendedLifetime(kept) {}
    }
    return runs.sorted()[1]
  }

  /// PNGs of photo-like content: smooth gradients with grain, each different.
  private func makePNGs(in folder: URL, generator: inout SystemRandomNumberGenerator) throws
    -> [String]
  {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return try (0..<pngFiles).map { number in
      var pixels = [UInt8](repeating: 0, count: side * side * 4)
      let tint = UInt8(truncatingIfNeeded: number &* 37)
      for y in 0..<side {
        for x in 0..<side {
          let grain = UInt8.random(in: 0...15, using: &generator)
          let offset = (y * side + x) * 4
          pixels[offset] = UInt8(truncatingIfNeeded: x * 4) &+ grain
          pixels[offset + 1] = UInt8(truncatingIfNeeded: y * 4) &+ tint
          pixels[offset + 2] = tint &+ grain
          pixels[offset + 3] = 255
        }
      }
      let path = folder.appendingPathComponent("\(number).png").path
      try VipsImage(pixels: pixels, width: side, height: side, bands: 4).write(to: path)
      return path
    }
  }
}

enum BenchmarkError: Error, CustomStringConvertible {
  case shortRead(path: String)

  var description: String {
    switch self {
    case .shortRead(let path): "\(path): the read returned fewer bytes than written"
    }
  }
}

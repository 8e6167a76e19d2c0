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
    /// The bare mmap lookup, timed interleaved with the hits.
    var bare: LatencySamples
    /// Lookups a second with one and with two threads (medians of five runs each).
    var threads: (hitsOne: Double, hitsTwo: Double, bareOne: Double, bareTwo: Double)
    /// Opening the filled table: read-only (as a reader process does) and for writing
    /// (which scans every record), nanoseconds, five of each alternating.
    var readerOpen: LatencySamples
    var writerOpen: LatencySamples

    var bareRatio: Double { hit.median / bare.median }
    var hitThreadScaling: Double { threads.hitsTwo / threads.hitsOne }
    var bareThreadScaling: Double { threads.bareTwo / threads.bareOne }

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

    progress("building a bare mmap lookup of the same entries")
    var slots = [Int](repeating: 0, count: entries)
    for entry in table.entries() {
      if let number = Int(entry.entityID.dropFirst(7).dropLast(4)) { slots[number] = entry.slot }
    }
    let headerSize = try Self.headerSize(of: table.tablePath)
    let bareLookup = try BareMmapLookup(
      path: folder.appendingPathComponent("bare.lookup").path, ids: ids, slots: slots,
      tablePath: table.tablePath, headerSize: headerSize, stride: table.layout.entryStride)

    let rawCount = min(entries, 20_000)
    progress("writing \(rawCount) raw files of \(bytesPerEntry) bytes")
    let rawFolder = folder.appendingPathComponent("raw")
    try FileManager.default.createDirectory(at: rawFolder, withIntermediateDirectories: true)
    let rawPaths = (0..<rawCount).map { rawFolder.appendingPathComponent("\($0).raw").path }
    let rawBytes = Data(repeating: 0x7F, count: bytesPerEntry)
    for path in rawPaths { try rawBytes.write(to: URL(fileURLWithPath: path)) }

    progress("encoding \(pngFiles) PNG files")
    let pngPaths = try makePNGs(in: folder.appendingPathComponent("png"), generator: &generator)

    progress("timing \(hits) table hits")
    progress("  interleaved with as many bare mmap lookups (each of another random entry)")
    var timer = LatencySamples(capacity: hits)
    for _ in 0..<hits {
      let start = LatencySamples.now()
      timer.append(LatencySamples.now() &- start)
    }
    var hit = LatencySamples(capacity: hits)
    let order = (0..<hits).map { _ in Int.random(in: 0..<entries, using: &generator) }
    // The bare lookups read other entries: one of the same entry would find its pixels
    // in the cache, brought there by the hit just before it (the same file pages).
    let bareOrder = (0..<hits).map { _ in Int.random(in: 0..<entries, using: &generator) }
    var sink: UInt8 = 0
    var bare = LatencySamples(capacity: hits)
    for (index, bareIndex) in zip(order, bareOrder) {
      let start = LatencySamples.now()
      let bitmap = table.bitmap(entityID: ids[index], sourceVersion: "v1")
      sink &+= bitmap?.bytes[0] ?? 1
      hit.append(LatencySamples.now() &- start)
      let bareStart = LatencySamples.now()
      sink &+= bareLookup.lookup(ids[bareIndex])?.load(as: UInt8.self) ?? 1
      bare.append(LatencySamples.now() &- bareStart)
    }
    progress("timing one and two reader threads (five runs each, alternating)")
    let threads = Self.threadThroughput(order: order) { index in
      table.bitmap(entityID: ids[index], sourceVersion: "v1")?.bytes[0] ?? 1
    } bare: { index in
      bareLookup.lookup(ids[index])?.load(as: UInt8.self) ?? 1
    }
    // Allocation: keep every object a hit returns, so anything a hit allocated stays
    // on the heap; beside it, a control that allocates one small object a step.
    let allocated = Self.heapGrowthPerStep(steps: order.count) { step in
      table.bitmap(entityID: ids[order[step]], sourceVersion: "v1")
    }
    let control = Self.heapGrowthPerStep(steps: order.count) { _ in HeapProbe() }

    progress("timing opens of the table, read-only and for writing (five each)")
    table.close()
    var readerOpen = LatencySamples(capacity: 5)
    var writerOpen = LatencySamples(capacity: 5)
    for _ in 0..<5 {
      var start = LatencySamples.now()
      let reader = try ImageTable(format: format, directory: folder, options: .init(readOnly: true))
      sink &+= reader.bitmap(entityID: ids[0], sourceVersion: "v1")?.bytes[0] ?? 1
      readerOpen.append(LatencySamples.now() &- start)
      start = LatencySamples.now()
      let writer = try ImageTable(format: format, directory: folder)
      writerOpen.append(LatencySamples.now() &- start)
      writer.close()
    }

    progress("timing \(rawReads) raw file reads")
    var raw = LatencySamples(capacity: rawReads)
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: bytesPerEntry, alignment: 64)
    defer { buffer.deallocate() }
    for _ in 0..<rawReads {
      let path = rawPaths[Int.random(in: 0..<rawCount, using: &generator)]
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
      allocatedBytesPerHit: allocated, controlBytesPerAllocation: control, bare: bare,
      threads: threads, readerOpen: readerOpen, writerOpen: writerOpen)
  }

  private static func headerSize(of tablePath: String) throws -> Int {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: tablePath))
    defer { try? handle.close() }
    let bytes = [UInt8](try handle.read(upToCount: 32) ?? Data())
    guard bytes.count == 32 else { throw BenchmarkError.shortRead(path: tablePath) }
    return Int(bytes[28]) | Int(bytes[29]) << 8 | Int(bytes[30]) << 16 | Int(bytes[31]) << 24
  }

  /// Lookups a second on one thread and on two at once, for the table and the bare
  /// lookup: the median of five runs of each, the four kinds alternating.
  static func threadThroughput(
    order: [Int], hit: @escaping @Sendable (Int) -> UInt8, bare: @escaping @Sendable (Int) -> UInt8
  ) -> (hitsOne: Double, hitsTwo: Double, bareOne: Double, bareTwo: Double) {
    func rate(threads: Int, _ lookup: @escaping @Sendable (Int) -> UInt8) -> Double {
      let start = LatencySamples.now()
      DispatchQueue.concurrentPerform(iterations: threads) { thread in
        var sink: UInt8 = 0
        for step in 0..<order.count {
          sink &+= lookup(order[(step &+ thread &* 7919) % order.count])
        }
        withExtendedLifetime(sink) {}
      }
      let seconds = Double(LatencySamples.now() &- start) / 1e9
      return Double(order.count * threads) / seconds
    }
    var runs: [[Double]] = [[], [], [], []]
    for _ in 0..<5 {
      runs[0].append(rate(threads: 1, hit))
      runs[1].append(rate(threads: 2, hit))
      runs[2].append(rate(threads: 1, bare))
      runs[3].append(rate(threads: 2, bare))
    }
    let medians = runs.map { $0.sorted()[2] }
    return (medians[0], medians[1], medians[2], medians[3])
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

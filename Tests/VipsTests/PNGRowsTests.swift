import Foundation
import TestFixtures
import Testing

@testable import Vips

/// `PNGRows.c`: a plain PNG's image data inflated by libdeflate and unfiltered, in place
/// of libpng's row reads; taken only for data beyond doubt, else left to libpng.
@Suite("PNG image data by libdeflate")
struct PNGRowsTests {
  /// A PNG's header fields and where its first IDAT chunk's data starts (where libpng's
  /// `png_read_info` stops).
  struct Layout {
    var width = 0, height = 0, depth = 0, colour = 0, interlaced = false
    var transparency = false
    var imageData: Int?
    var imageChunks = 0

    init(_ bytes: [UInt8]) {
      var position = 8
      while position + 8 <= bytes.count {
        let length = Int(Self.bigEndian(bytes, position))
        let type = String(decoding: bytes[position + 4..<position + 8], as: UTF8.self)
        if type == "IHDR", position + 21 <= bytes.count {
          width = Int(Self.bigEndian(bytes, position + 8))
          height = Int(Self.bigEndian(bytes, position + 12))
          depth = Int(bytes[position + 16])
          colour = Int(bytes[position + 17])
          interlaced = bytes[position + 20] != 0
        }
        if type == "tRNS" { transparency = true }
        if type == "IDAT" {
          if imageData == nil { imageData = position + 8 }
          imageChunks += 1
        }
        position += 12 + length
      }
    }

    static func bigEndian(_ bytes: [UInt8], _ at: Int) -> UInt32 {
      bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    var channels: Int { [0: 1, 2: 3, 4: 2, 6: 4][colour] ?? 0 }
    /// What `PNGDecode.c` hands to `PNGRows.c`.
    var isPlain: Bool {
      !interlaced && (depth == 8 || depth == 16) && channels > 0 && !transparency
        && imageData != nil
    }
    var stride: Int { width * channels * depth / 8 }
  }

  static func decode(_ bytes: [UInt8], _ layout: Layout) -> (status: Int32, rows: [UInt8]) {
    PNGRowsCall.decode(
      bytes, imageData: layout.imageData ?? 0, stride: layout.stride, height: layout.height,
      bytesPerPixel: layout.channels * layout.depth / 8, sixteen: layout.depth == 16)
  }

  static let done = PNGRowsCall.done
  static let notTaken = PNGRowsCall.notTaken

  /// Noise of `bands` bands, 8- or 16-bit (every bit random).
  static func noise(width: Int, height: Int, bands: Int, sixteen: Bool, seed: UInt32) throws
    -> VipsImage
  {
    var state = seed
    func samples() -> [UInt8] {
      (0..<width * height * bands).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
      }
    }
    let high = try VipsImage(pixels: samples(), width: width, height: height, bands: bands)
    guard sixteen else { return high }
    let low = try VipsImage(pixels: samples(), width: width, height: height, bands: bands)
    return try high.cast(to: .ushort).linear([256], [0]).adding(low.cast(to: .ushort))
      .cast(to: .ushort).materialized()
  }

  @Test(
    "every filter libpng writes, at 1 to 4 bands of 8 and 16 bits, unfilters to the pixels it was given, SSE2 or not"
  )
  func everyFilterAndPixelSize() throws {
    let folder = try Fixtures.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    var multipleChunks = 0
    for bands in 1...4 {
      for sixteen in [false, true] {
        let image = try Self.noise(
          width: 67, height: 45, bands: bands, sixteen: sixteen, seed: UInt32(bands * 7))
        let pixels = try image.writePixels()
        for filter in ["none", "sub", "up", "avg", "paeth"] {
          let path = folder.appendingPathComponent("\(bands)-\(sixteen)-\(filter).png").path
          try image.save(
            to: path, options: "filter=\(filter),compression=1,bitdepth=\(sixteen ? 16 : 8)")
          let bytes = [UInt8](try Data(contentsOf: URL(filePath: path)))
          let layout = Layout(bytes)
          #expect(layout.isPlain && layout.depth == (sixteen ? 16 : 8), "\(path)")
          if layout.imageChunks > 1 { multipleChunks += 1 }
          let decoded = Self.decode(bytes, layout)
          #expect(decoded.status == Self.done, "\(path)")
          let same = decoded.rows == pixels
          #expect(same, "\(bands) bands, 16-bit \(sixteen), filter \(filter)")
          // The scalar filters, where SSE2 is not there, give the same.
          let scalar = PNGRowsCall.scalar { Self.decode(bytes, layout) }
          let scalarSame = scalar.status == Self.done && scalar.rows == pixels
          #expect(scalarSame, "scalar: \(bands) bands, 16-bit \(sixteen), filter \(filter)")
          // And through the whole decode, libpng reading the header.
          let probe = try VipsImage(bytes: bytes, name: path)
          let whole = try #require(
            try VipsImage.decodedByLibpng(ByteBuffer(copying: bytes), like: probe, source: path))
          let wholeSame = try whole.writePixels() == pixels
          #expect(wholeSame, "\(path)")
        }
      }
    }
    // Image data in several IDAT chunks, joined before the inflate.
    #expect(multipleChunks >= 20)
  }

  /// Every plain file of PngSuite and libpng's test images (the damaged ones apart) is
  /// taken and gives libvips's pixels; the damaged ones are never taken.
  @Test("PngSuite's and libpng's plain files: taken, libvips's pixels; their damaged ones: not")
  func corpora() throws {
    var taken: [String] = []
    var notTaken: [String] = []
    for path in try PNGDecodeTests.pngs() {
      let bytes = [UInt8](try Data(contentsOf: URL(filePath: path)))
      let layout = Layout(bytes)
      guard layout.isPlain, layout.width > 0, layout.height > 0 else { continue }
      let name = URL(filePath: path).lastPathComponent
      let decoded = Self.decode(bytes, layout)
      guard decoded.status == Self.done else {
        notTaken.append(name)
        continue
      }
      // PngSuite's IHDR whose CRC fails: its image data is sound, and libpng refuses
      // the file at its header, before this code is reached.
      if name == "xhdn0g08.png" {
        #expect(throws: VipsError.self) { try VipsImage(bytes: bytes, name: name) }
        continue
      }
      #expect(!name.hasPrefix("x") && !path.contains("/crashers/"), "\(path) was taken")
      taken.append(name)
      let reference = try PNGDecodeTests.libvipsLoad(bytes).writePixels()
      let same = decoded.rows == reference
      #expect(same, "\(path)")
    }
    #expect(taken.count >= 60, "taken: \(taken.count)")
    // libpng's crasher whose IDAT declares more than the file holds: left to libpng.
    // (Their bad Adler-32 and IDAT CRC are in palette and 1-bit files, never plain;
    // the test below makes both.)
    #expect(notTaken == ["huge_IDAT.png"], "not taken: \(notTaken)")
  }

  // A PNG built here: one IDAT of stored (uncompressed) deflate blocks, so that its
  // filter bytes, zlib header and ending can be anything.

  static func bigEndian(_ value: UInt32) -> [UInt8] {
    [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
  }

  static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    return bigEndian(UInt32(data.count)) + body + bigEndian(FileDamage.crc32(body[...]))
  }

  /// A zlib stream of `data` in stored blocks, `header` its first byte, `tail` after it.
  static func zlib(_ data: [UInt8], header: UInt8 = 0x78, tail: [UInt8] = []) -> [UInt8] {
    var stream: [UInt8] = [header]
    stream.append(UInt8(31 - Int(header) * 256 % 31))  // FCHECK: a multiple of 31
    var start = 0
    repeat {
      let block = data[start..<min(data.count, start + 65_535)]
      let last: UInt8 = start + block.count == data.count ? 1 : 0
      let length = UInt16(block.count)
      stream += [last, UInt8(length & 0xff), UInt8(length >> 8)]
      stream += [UInt8(~length & 0xff), UInt8(~length >> 8)]
      stream += block
      start += block.count
    } while start < data.count
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in data {
      a = (a + UInt32(byte)) % 65_521
      b = (b + a) % 65_521
    }
    return stream + bigEndian(b << 16 | a) + tail
  }

  /// An 8-bit RGB PNG of `rows`, each a filter type and its filtered bytes.
  static func png(width: Int, rows: [(UInt8, [UInt8])], stream: ([UInt8]) -> [UInt8]) -> [UInt8] {
    png(
      width: width, height: rows.count, colour: 2,
      imageData: [stream(rows.flatMap { [$0.0] + $0.1 })])
  }

  /// An 8-bit PNG of colour type `colour` whose IDAT chunks hold `imageData`, IEND after
  /// them unless `end` is false.
  static func png(width: Int, height: Int, colour: UInt8, imageData: [[UInt8]], end: Bool = true)
    -> [UInt8]
  {
    let header = bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, colour, 0, 0, 0]
    return [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + chunk("IHDR", header)
      + imageData.flatMap { chunk("IDAT", $0) } + (end ? chunk("IEND", []) : [])
  }

  @Test(
    "a filter type above 4, a bad Adler-32 or CRC, a window short of the data, data past the stream, a byte short or long: not taken"
  )
  func doubtfulDataIsLeftToLibpng() throws {
    let width = 30  // 4 rows of 91 bytes: more than a 256-byte window
    let rows: [(UInt8, [UInt8])] = (0..<4).map { y in
      (UInt8(y % 5), (0..<width * 3).map { UInt8(truncatingIfNeeded: $0 * 37 + y * 11) })
    }
    // The stream as built is taken, and gives what libvips's pngload gives.
    let clean = Self.png(width: width, rows: rows) { Self.zlib($0) }
    let layout = Layout(clean)
    let decoded = Self.decode(clean, layout)
    #expect(decoded.status == Self.done)
    let reference = try PNGDecodeTests.libvipsLoad(clean).writePixels()
    #expect(decoded.rows == reference, "the rows as built")

    // The stream's last byte (its Adler-32's) changed, the chunk's CRC made for it.
    let badAdler = Self.png(width: width, rows: rows) {
      var stream = Self.zlib($0)
      stream[stream.count - 1] ^= 1
      return stream
    }
    var badCRC = clean
    badCRC[clean.count - 13] ^= 1
    var badFilter = rows
    badFilter[2].0 = 5
    let doubtful: [(String, [UInt8])] = [
      ("filter type 5", Self.png(width: width, rows: badFilter) { Self.zlib($0) }),
      (
        "a window smaller than the data",
        Self.png(width: width, rows: rows) { Self.zlib($0, header: 0x08) }
      ),
      ("bytes after the stream", Self.png(width: width, rows: rows) { Self.zlib($0, tail: [0]) }),
      ("an Adler-32 that fails", badAdler),
      ("an IDAT CRC that fails", badCRC),
      ("a byte short", Self.png(width: width, rows: rows) { Self.zlib(Array($0.dropLast())) }),
      ("a byte long", Self.png(width: width, rows: rows) { Self.zlib($0 + [0]) }),
    ]
    for (what, bytes) in doubtful {
      #expect(Self.decode(bytes, Layout(bytes)).status == Self.notTaken, "\(what)")
    }
    // libvips's pngload does not check Adler-32: libpng reads those rows.
    let adlerRead = try #require(
      try VipsImage.decodedByLibpng(
        ByteBuffer(copying: badAdler), like: VipsImage(bytes: badAdler, name: "a.png"),
        source: "a"))
    #expect(try adlerRead.writePixels() == decoded.rows, "a bad Adler-32, read by libpng")
    // A window of all the data (512 bytes) holds every distance: taken.
    let wholeWindow = Self.png(width: width, rows: rows) { Self.zlib($0, header: 0x18) }
    let inWindow = Self.decode(wholeWindow, Layout(wholeWindow))
    #expect(inWindow.status == Self.done)
    #expect(inWindow.rows == decoded.rows, "a window of all the data")
    // libpng then reads the rows: a bad filter type is refused, the small window read.
    let probe = try VipsImage(bytes: doubtful[0].1, name: "filter.png")
    #expect(
      try VipsImage.decodedByLibpng(ByteBuffer(copying: doubtful[0].1), like: probe, source: "f")
        == nil)
    let window = doubtful[1].1
    let windowed = try #require(
      try VipsImage.decodedByLibpng(
        ByteBuffer(copying: window), like: VipsImage(bytes: window, name: "w.png"), source: "w"))
    #expect(try windowed.writePixels() == decoded.rows, "a small window, read by libpng")
  }

  /// How the stream is laid out in chunks: split anywhere, empty chunks between, no IEND
  /// after the last; a CRC that fails in a later chunk; more bytes than the rows need.
  @Test(
    "IDAT chunks: split, empty, at the end of the file (taken); a later CRC that fails, padding (not)"
  )
  func imageDataChunks() throws {
    let rows: [(UInt8, [UInt8])] = (0..<6).map { (y: Int) -> (UInt8, [UInt8]) in
      let row: [UInt8] = (0..<120).map { (x: Int) in UInt8(truncatingIfNeeded: x * 13 + y * 7) }
      return (UInt8(y % 5), row)
    }
    let stream = Self.zlib(rows.flatMap { [$0.0] + $0.1 })
    let one = Self.png(width: 40, height: 6, colour: 2, imageData: [stream])
    let expected = try PNGDecodeTests.libvipsLoad(one).writePixels()
    let split: [[UInt8]] = [
      Array(stream[..<7]), [], Array(stream[7..<300]), [], Array(stream[300...]),
    ]
    let taken: [(String, [UInt8])] = [
      ("one chunk", one),
      ("split, empty chunks between", Self.png(width: 40, height: 6, colour: 2, imageData: split)),
      (
        "no IEND after the last",
        Self.png(width: 40, height: 6, colour: 2, imageData: split, end: false)
      ),
    ]
    for (what, bytes) in taken {
      let decoded = Self.decode(bytes, Layout(bytes))
      #expect(decoded.status == Self.done, "\(what)")
      #expect(decoded.rows == expected, "\(what)")
    }
    // The third chunk's CRC (its last byte) changed.
    var badCRC = Self.png(width: 40, height: 6, colour: 2, imageData: split)
    let third = 33 + 12 + 7 + 12 + 12 + 293
    badCRC[third - 1] ^= 0x40
    #expect(Self.decode(badCRC, Layout(badCRC)).status == Self.notTaken, "a later CRC")
    // Empty stored blocks before the data: a valid stream, but more than an eighth
    // longer than the rows (and 1,024 bytes): left to libpng, which reads it row by row.
    let empty: [UInt8] = [0, 0, 0, 0xff, 0xff]
    let padded =
      Array(stream[..<2]) + Array(repeating: empty, count: 400).flatMap { $0 } + stream[2...]
    let paddedPNG = Self.png(width: 40, height: 6, colour: 2, imageData: [padded])
    #expect(Self.decode(paddedPNG, Layout(paddedPNG)).status == Self.notTaken, "padding")
    let read = try #require(
      try VipsImage.decodedByLibpng(
        ByteBuffer(copying: paddedPNG), like: VipsImage(bytes: paddedPNG, name: "p.png"),
        source: "p"))
    #expect(try read.writePixels() == expected, "padding, read by libpng")
  }

  /// 4,100 x 4,100 RGBA: 67,244,100 bytes of rows, past the 64 MiB one inflate may make.
  @Test("rows past 64 MiB are left to libpng, which checks the time limit after each")
  func largeImagesAreLeftToLibpng() throws {
    let side = 4100
    let folder = try Fixtures.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("large.png").path
    try VipsImage(
      pixels: [UInt8](repeating: 0, count: side * side * 4), width: side, height: side, bands: 4
    ).save(to: path, options: "compression=9")
    let bytes = [UInt8](try Data(contentsOf: URL(filePath: path)))
    let layout = Layout(bytes)
    #expect(layout.isPlain && (layout.stride + 1) * layout.height > 64 << 20)
    #expect(Self.decode(bytes, layout).status == Self.notTaken)
  }

  /// The one known difference from libpng (PNGRows.c): libdeflate reads length symbol
  /// 286, which zlib refuses. A 258 x 1 grey row: literal 0, then symbol 286 (read as a
  /// length of 258), its Adler-32 that of 259 zeros, its CRC right.
  @Test("a code zlib refuses and libdeflate reads, in a stream made to match: taken (known)")
  func aCodeOnlyLibdeflateReads() throws {
    let stream: [UInt8] = [0x78, 0x9c, 0x63, 0x18, 0x03, 0x00, 0x01, 0x03, 0x00, 0x01]
    let bytes = Self.png(width: 258, height: 1, colour: 0, imageData: [stream])
    let decoded = Self.decode(bytes, Layout(bytes))
    #expect(decoded.status == Self.done)
    #expect(decoded.rows == [UInt8](repeating: 0, count: 258), "258 zeros")
    // zlib refuses it ("invalid literal/length code", Python's zlib and `vips copy`
    // both say); libvips 8.14's pngload, on 2 threads, refused it only 22 times in 30
    // (its own race; every time with VIPS_CONCURRENCY=1), so it is no witness here.
  }

  @Test("the inflate and unfilter of a plain PNG stop at this thread's time limit, between rows")
  func stopsAtTheTimeLimit() throws {
    // One row of noise over and over: every row Paeth-filtered to zeros, so the file is
    // small (its CRCs and inflate quick) and the unfilter of its 27 MB is most of the
    // decode; the limit passes in it.
    let side = 3000
    let row = Array(Generated.noise(side: side, seed: 9876).prefix(side * 3))
    var noise: [UInt8] = []
    noise.reserveCapacity(side * side * 3)
    for _ in 0..<side { noise += row }
    let bytes = try PNGDecodeTests.savedPNG(
      noise, side: side, options: "filter=paeth,compression=1")
    // This file's rows are the inflate's and unfilter's, not libpng's.
    #expect(Self.decode(bytes, Layout(bytes)).status == Self.done)
    let probe = try VipsImage(bytes: bytes, name: "noise.png")
    // Copied before the limit starts: the decode alone is timed, so the limit passes
    // after the check before the inflate, and only the checks between rows stop it.
    let storage = ByteBuffer(copying: bytes)
    func decode() throws(VipsError) -> VipsImage? {
      try VipsImage.decodedByLibpng(storage, like: probe, source: "noise.png")
    }
    let decoded = try CodecDecodeChecks.expectStopsInside(source: "noise.png", decode)
    let same = try decoded.writePixels() == noise
    #expect(same, "the whole decode's pixels")
  }
}

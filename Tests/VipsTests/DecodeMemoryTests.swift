import Foundation
import TestFixtures
import Testing

@testable import Vips

/// A decode's memory is estimated from its header and held to ``ImageLimits/maxDecodeMemory``
/// before any pixel is decoded: the bombs the pixel limits let through (a small
/// progressive JPEG of a huge size, whose every DCT coefficient libjpeg holds) are
/// refused, and a file large enough for a real image of that size is not.
@Suite("Decode memory")
struct DecodeMemoryTests {
  /// A flat grey 2000x`height` photo saved by libvips's jpegsave with `options`.
  static func jpeg(_ options: String, height: Int = 1500) throws -> [UInt8] {
    let path = try Fixtures.temporaryFolder().appendingPathComponent("flat.jpg").path
    try VipsImage(pixels: [120, 120, 120], width: 1, height: 1, bands: 3)
      .embedded(x: 0, y: 0, width: 2000, height: height, background: [120, 120, 120])
      .save(to: path, options: options)
    return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// A JPEG's DCT coefficient buffer as libjpeg lays it out, counted from the JPEG
  /// standard rather than from ``DecodeMemory``: 8x8 blocks of 2-byte coefficients, each
  /// component's blocks across and down rounded up to its sampling factor (its share of
  /// a 16x16 or 8x8 MCU).
  static func coefficientBytes(width: Int, height: Int, luma: (Int, Int), chroma: (Int, Int))
    -> Int
  {
    let (maxH, maxV) = luma
    func blocks(_ sampling: (Int, Int)) -> Int {
      let across = (width * sampling.0 + 8 * maxH - 1) / (8 * maxH)
      let down = (height * sampling.1 + 8 * maxV - 1) / (8 * maxV)
      func roundUp(_ value: Int, _ multiple: Int) -> Int {
        (value + multiple - 1) / multiple * multiple
      }
      return roundUp(across, sampling.0) * roundUp(down, sampling.1)
    }
    return (blocks(luma) + 2 * blocks(chroma)) * 64 * 2
  }

  @Test("a progressive JPEG's estimate is libjpeg's coefficient buffer, at full size")
  func progressiveJPEGCoefficients() throws {
    let subsampled = try ImageHeader(bytes: Self.jpeg("Q=50,interlace"))
    #expect(subsampled.isInterlaced)
    #expect(subsampled.chromaSubsampling == "4:2:0")
    #expect(
      DecodeMemory(header: subsampled, shrunkBy: 8).loaderBytes
        == Self.coefficientBytes(width: 2000, height: 1500, luma: (2, 2), chroma: (1, 1)))
    #expect(DecodeMemory(header: subsampled, shrunkBy: 8).loaderBytes == 9_024_000)

    let full = try ImageHeader(bytes: Self.jpeg("Q=50,interlace,subsample_mode=off"))
    #expect(full.chromaSubsampling == "4:4:4")
    let memory = DecodeMemory(header: full, shrunkBy: 4)
    #expect(
      memory.loaderBytes
        == Self.coefficientBytes(width: 2000, height: 1500, luma: (1, 1), chroma: (1, 1)))
    // The decode kept: 500x375 8-bit RGB.
    #expect(memory.decodeBytes == 500 * 375 * 3)
    // 1512 rows are 189 blocks: a multiple of 8, not of 16, which a 4:4:4 MCU is not.
    let rows1512 = try ImageHeader(
      bytes: Self.jpeg("Q=50,interlace,subsample_mode=off", height: 1512))
    #expect(
      DecodeMemory(header: rows1512, shrunkBy: 4).loaderBytes
        == Self.coefficientBytes(width: 2000, height: 1512, luma: (1, 1), chroma: (1, 1)))

    let baseline = try ImageHeader(bytes: Self.jpeg("Q=50"))
    #expect(!baseline.isInterlaced)
    #expect(DecodeMemory(header: baseline, shrunkBy: 4).loaderBytes == 0)
  }

  @Test("a small progressive JPEG over the limit is refused before decoding, in words")
  func aSmallFileOverTheLimitIsRefused() throws {
    let bytes = try Self.jpeg("Q=50,interlace,subsample_mode=off")
    // Small enough that 200 bytes a byte stays under the limit.
    try #require(bytes.count * 200 < 8 << 20)
    let limits = ImageLimits(maxDecodeMemory: 8 << 20)
    let coefficients = Self.coefficientBytes(
      width: 2000, height: 1500, luma: (1, 1), chroma: (1, 1))
    let holds =
      "a progressive JPEG keeps every DCT coefficient of its 2000x1500 pixels until its last "
      + "scan"
    let expected = VipsError.decodeMemoryTooLarge(
      source: "flat.jpg", bytes: coefficients + 500 * 375 * 3, holds: holds, allowed: 8 << 20,
      fileSize: bytes.count, perFileByte: 0)
    #expect(throws: expected) {
      try VipsImage.decode(bytes: bytes, name: "flat.jpg", limits: limits) { _ in 8 }
    }
    #expect(expected.kind == .tooLarge)
    #expect(
      expected.description
        == "flat.jpg: decoding it would take about 17.7 MiB of memory (a progressive JPEG keeps "
        + "every DCT coefficient of its 2000x1500 pixels until its last scan), more than the "
        + "8.0 MiB allowed for a file of \(ByteCountText.describe(bytes.count)); refused before "
        + "decoding as a likely decompression bomb (if it is a real photo, a limit of 18 MiB "
        + "reads it: --max-decode-memory)")
    // libvips's own thumbnail is held to the same limit: a 375-pixel box is a shrink of 4
    // (the smaller side's), which JPEG's shrink-on-load takes 2 of, a 1000x750 decode.
    let thumbnailError = VipsError.decodeMemoryTooLarge(
      source: "flat.jpg", bytes: coefficients + 1000 * 750 * 3, holds: holds, allowed: 8 << 20,
      fileSize: bytes.count, perFileByte: 0)
    #expect(throws: thumbnailError) {
      try VipsImage.thumbnail(
        bytes: bytes, name: "flat.jpg", width: 375, options: .init(limits: limits))
    }
    // A limit with no allowance for the file's size is a hard one.
    let hard = ImageLimits(maxDecodeMemory: 8 << 20, decodeMemoryPerFileByte: 0)
    #expect(hard.decodeMemoryAllowed(fileSize: 100 << 20) == 8 << 20)
    // The same picture stored baseline is read a few rows at a time: decoded.
    let baseline = try VipsImage.decode(
      bytes: Self.jpeg("Q=50,subsample_mode=off"), name: "baseline.jpg", limits: limits
    ) { _ in 8 }
    #expect(baseline.image.width == 500 && baseline.image.height == 375)
    // And the progressive one with a limit that covers it.
    let raised = try VipsImage.decode(
      bytes: bytes, name: "flat.jpg", limits: ImageLimits(maxDecodeMemory: 32 << 20)
    ) { _ in 8 }
    #expect(raised.image.width == 500 && raised.image.height == 375)
  }

  @Test("a file large enough to hold such an image may take 200 bytes for each of its bytes")
  func aLargeFileMayTakeMore() throws {
    let bytes = try Self.jpeg("Q=50,interlace,subsample_mode=off")
    // Two comment segments of 60,000 bytes after the start-of-image marker: the same
    // picture in a file of about 120 KB, which may take about 24 MB.
    let comment: [UInt8] = [0xFF, 0xFE, 0xEA, 0x62] + [UInt8](repeating: 0x20, count: 60_000)
    let padded = Array(bytes[..<2]) + comment + comment + Array(bytes[2...])
    let limits = ImageLimits(maxDecodeMemory: 8 << 20)
    #expect(limits.decodeMemoryAllowed(fileSize: padded.count) == padded.count * 200)
    // Refused at its own size, for all the same pixels.
    #expect(limits.decodeMemoryAllowed(fileSize: bytes.count) == 8 << 20)
    #expect(throws: VipsError.self) {
      try VipsImage.decode(bytes: bytes, name: "flat.jpg", limits: limits) { _ in 8 }
    }
    #expect(limits.decodeMemoryAllowed(fileSize: 1_000) == 8 << 20)
    let decoded = try VipsImage.decode(bytes: padded, name: "padded.jpg", limits: limits) { _ in 8 }
    #expect(decoded.image.width == 500 && decoded.image.height == 375)
    // Pixels as the unpadded file's, decoded with no limit.
    let reference = try VipsImage.decode(bytes: bytes, name: "flat.jpg", limits: nil) { _ in 8 }
    let (got, expected) = try (decoded.image.computePixels(), reference.image.computePixels())
    #expect(Array(got.bytes) == Array(expected.bytes))
  }

  @Test("what each loader holds whole: an interlaced PNG, a GIF; a plain PNG holds rows")
  func loadersThatHoldTheWholeImage() throws {
    let folder = try Fixtures.temporaryFolder()
    let image = try VipsImage(pixels: [10, 200, 30], width: 1, height: 1, bands: 3)
      .embedded(x: 0, y: 0, width: 300, height: 200, background: [10, 200, 30])
    func header(_ name: String, _ options: String = "") throws -> ImageHeader {
      let path = folder.appendingPathComponent(name).path
      try image.save(to: path, options: options)
      return try ImageHeader(file: path)
    }
    let interlaced = try header("interlaced.png", "interlace")
    #expect(interlaced.loader == "pngload" && interlaced.isInterlaced)
    #expect(DecodeMemory(header: interlaced, shrunkBy: 1).loaderBytes == 300 * 200 * 3)
    let plain = try header("plain.png")
    #expect(plain.loader == "pngload" && !plain.isInterlaced)
    #expect(DecodeMemory(header: plain, shrunkBy: 1).loaderBytes == 0)
    #expect(DecodeMemory(header: plain, shrunkBy: 1).decodeBytes == 300 * 200 * 3)
    let gif = try header("frame.gif")
    #expect(gif.loader == "gifload")
    #expect(DecodeMemory(header: gif, shrunkBy: 1).loaderBytes == 300 * 200 * 4)
  }
}

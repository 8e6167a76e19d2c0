import ImageTables
import Testing
import Vips

/// The rasterizer's rows (``StylePixels``, in C) store the same bytes as
/// ``PixelStyle/store(_:at:)`` does pixel by pixel: every colour level at every alpha,
/// and rows of several lengths (none at all too), written one byte past an aligned
/// start and nowhere outside the row.
@Suite struct StylePixelsTests {
  /// Every (level, alpha) pair once: red the level, green its complement, blue another.
  static let everyPair: [UInt8] = (0..<65_536).flatMap { index -> [UInt8] in
    let level = UInt8(index & 0xFF)
    return [level, 255 - level, level ^ 0x5A, UInt8(index >> 8)]
  }

  static func expected(_ rgba: [UInt8], channels: Int, style: PixelStyle) -> [UInt8] {
    let count = rgba.count / channels
    var bytes = [UInt8](repeating: 0, count: count * 4)
    bytes.withUnsafeMutableBytes { out in
      for x in 0..<count {
        let p = x * channels
        let pixel =
          channels == 4
          ? RGBA(rgba[p], rgba[p + 1], rgba[p + 2], rgba[p + 3])
          : RGBA(rgba[p], rgba[p + 1], rgba[p + 2])
        style.store(pixel, at: out.baseAddress! + 4 * x)
      }
    }
    return bytes
  }

  /// Where `ours` first differs from `expected` (the pixel and both pixels' bytes), or
  /// nil: a failure names one pixel instead of printing a quarter of a megabyte.
  static func firstDifference(_ ours: [UInt8], _ expected: [UInt8]) -> String? {
    guard ours.count == expected.count else { return "\(ours.count) bytes, not \(expected.count)" }
    guard let byte = ours.indices.first(where: { ours[$0] != expected[$0] }) else { return nil }
    let pixel = byte / 4
    return
      "pixel \(pixel): \(Array(ours[(4 * pixel)..<(4 * pixel + 4)])), not \(Array(expected[(4 * pixel)..<(4 * pixel + 4)]))"
  }

  /// Runs `store` on `rgba` into a buffer one byte past an aligned start.
  static func stored(
    _ rgba: [UInt8], channels: Int,
    _ store: (UnsafePointer<UInt8>, UnsafeMutableRawPointer, Int) -> Void
  ) -> [UInt8] {
    let count = rgba.count / channels
    var buffer = [UInt8](repeating: 0xEE, count: count * 4 + 2)
    buffer.withUnsafeMutableBytes { out in
      rgba.withUnsafeBufferPointer { store($0.baseAddress!, out.baseAddress! + 1, count) }
    }
    #expect(buffer.first == 0xEE && buffer.last == 0xEE, "wrote outside its row")
    return Array(buffer[1..<(1 + count * 4)])
  }

  @Test func premultipliedBGRAIsPixelStylesForEveryLevelAndAlpha() {
    let ours = Self.stored(Self.everyPair, channels: 4, StylePixels.storePremultipliedBGRA)
    let difference = Self.firstDifference(
      ours, Self.expected(Self.everyPair, channels: 4, style: .bgra32))
    #expect(difference == nil, "\(difference ?? "")")
    // Spot check of the rounding against the formula: 200 at alpha 128 is 100.
    let half = Self.stored([200, 0, 0, 128], channels: 4, StylePixels.storePremultipliedBGRA)
    #expect(half == [0, 0, 100, 128])
  }

  @Test func bgrxIsPixelStylesForEveryLevel() {
    let rgb = (0..<65_536).flatMap { (index: Int) -> [UInt8] in
      [UInt8(index & 0xFF), UInt8(index >> 8), UInt8((index * 7) & 0xFF)]
    }
    let ours = Self.stored(rgb, channels: 3, StylePixels.storeBGRX)
    let difference = Self.firstDifference(ours, Self.expected(rgb, channels: 3, style: .bgr32))
    #expect(difference == nil, "\(difference ?? "")")
    #expect(Self.stored([1, 2, 3], channels: 3, StylePixels.storeBGRX) == [3, 2, 1, 255])
  }

  @Test(arguments: [0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 65])
  func rowsOfSeveralLengthsWriteTheirPixelsOnly(count: Int) {
    let rgba = Array(Self.everyPair[(1000 * 4)..<((1000 + count) * 4)])
    let premultiplied = Self.firstDifference(
      Self.stored(rgba, channels: 4, StylePixels.storePremultipliedBGRA),
      Self.expected(rgba, channels: 4, style: .bgra32))
    #expect(premultiplied == nil, "\(premultiplied ?? "")")
    let rgb = Array(rgba.prefix(count * 3))
    let bgrx = Self.firstDifference(
      Self.stored(rgb, channels: 3, StylePixels.storeBGRX),
      Self.expected(rgb, channels: 3, style: .bgr32))
    #expect(bgrx == nil, "\(bgrx ?? "")")
  }
}

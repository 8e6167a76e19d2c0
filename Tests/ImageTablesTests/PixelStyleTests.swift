import Testing

@testable import ImageTables

@Suite("Pixel styles")
struct PixelStyleTests {
  private func stored(_ pixel: RGBA, as style: PixelStyle) -> [UInt8] {
    var bytes = [UInt8](repeating: 0xEE, count: style.bytesPerPixel)
    bytes.withUnsafeMutableBytes { style.store(pixel, at: $0.baseAddress!) }
    return bytes
  }

  private func loaded(_ bytes: [UInt8], as style: PixelStyle) -> RGBA {
    bytes.withUnsafeBytes { style.load(from: $0.baseAddress!) }
  }

  @Test func bgra32IsPremultipliedBGRA() {
    #expect(stored(RGBA(255, 255, 255, 255), as: .bgra32) == [255, 255, 255, 255])
    #expect(stored(RGBA(10, 20, 30, 255), as: .bgra32) == [30, 20, 10, 255])
    // Half transparent: each colour times 128/255, rounded to nearest.
    // 200 x 128 / 255 = 100.39, 100 x 128 / 255 = 50.20, 50 x 128 / 255 = 25.10.
    #expect(stored(RGBA(200, 100, 50, 128), as: .bgra32) == [25, 50, 100, 128])
    // 255 x 1 / 255 = 1; 127 x 1 / 255 = 0.498 rounds to 0; 128 x 1 / 255 rounds to 1.
    #expect(stored(RGBA(255, 127, 128, 1), as: .bgra32) == [1, 0, 1, 1])
    #expect(stored(RGBA(255, 0, 0, 0), as: .bgra32) == [0, 0, 0, 0])
  }

  @Test func bgra32LoadsStraightColour() {
    #expect(loaded([25, 50, 100, 128], as: .bgra32) == RGBA(199, 100, 50, 128))
    #expect(loaded([0, 0, 0, 0], as: .bgra32) == RGBA(0, 0, 0, 0))
    #expect(loaded([30, 20, 10, 255], as: .bgra32) == RGBA(10, 20, 30, 255))
  }

  @Test func bgr32IsBGRWithAnUnusedByteOf255() {
    #expect(stored(RGBA(10, 20, 30, 77), as: .bgr32) == [30, 20, 10, 255])
    #expect(loaded([30, 20, 10, 0], as: .bgr32) == RGBA(10, 20, 30, 255))
  }

  @Test func bgr555PacksFiveBitsLittleEndian() {
    #expect(stored(RGBA(255, 0, 0), as: .bgr555) == [0x00, 0x7C])  // red: bits 10-14
    #expect(stored(RGBA(0, 255, 0), as: .bgr555) == [0xE0, 0x03])  // green: bits 5-9
    #expect(stored(RGBA(0, 0, 255), as: .bgr555) == [0x1F, 0x00])  // blue: bits 0-4
    #expect(stored(RGBA(255, 255, 255), as: .bgr555) == [0xFF, 0x7F])  // bit 15 unused
    // Rounding to nearest: 132 x 31 / 255 = 16.05 -> 16; 5 -> 0.61 -> 1; 4 -> 0.49 -> 0.
    // So red 16, green 1, blue 0: 16 << 10 | 1 << 5 = 0x4020.
    #expect(stored(RGBA(132, 5, 4), as: .bgr555) == [0x20, 0x40])
    // Back to 8 bits, the top bits repeat below: 16 -> 132, 31 -> 255, 1 -> 8.
    #expect(loaded([0x20, 0x40], as: .bgr555) == RGBA(132, 8, 0))
    #expect(loaded([0xFF, 0x7F], as: .bgr555) == RGBA(255, 255, 255))
    #expect(loaded([0xFF, 0xFF], as: .bgr555) == RGBA(255, 255, 255))  // bit 15 ignored
  }

  @Test func gray8IsOneByte() {
    #expect(stored(RGBA(77, 1, 2), as: .gray8) == [77])
    #expect(loaded([77], as: .gray8) == RGBA(77, 77, 77, 255))
  }

  @Test(arguments: PixelStyle.allCases)
  func opaqueColoursRoundTrip(_ style: PixelStyle) {
    for value in stride(from: 0, through: 255, by: 17) {
      let grey = UInt8(value)
      let back = loaded(stored(RGBA(grey, grey, grey), as: style), as: style)
      let tolerance = style == .bgr555 ? 4 : 0
      #expect(abs(Int(back.red) - value) <= tolerance && back.alpha == 255)
    }
  }

  @Test func layoutsPadRowsTo64Bytes() {
    let small = EntryLayout(width: 10, height: 3, style: .bgra32)  // 40 bytes a row
    #expect(small.bytesPerRow == 64 && small.bytesPerEntry == 192 && small.entryStride == 192)
    let grey = EntryLayout(width: 65, height: 2, style: .gray8)
    #expect(grey.bytesPerRow == 128)
    let packed = EntryLayout(width: 33, height: 1, style: .bgr555)
    #expect(packed.bytesPerRow == 128)
    // 64x64 bgra32 is 16 KiB: a whole number of pages already.
    let avatar = EntryLayout(width: 64, height: 64, style: .bgra32)
    #expect(avatar.bytesPerRow == 256 && avatar.entryStride == 16_384)
    // 40x40 bgr32: 192-byte rows, 7,680 bytes, so entries start a page apart (8,192).
    let page = EntryLayout(width: 40, height: 40, style: .bgr32)
    #expect(page.bytesPerRow == 192 && page.bytesPerEntry == 7_680 && page.entryStride == 8_192)
  }
}

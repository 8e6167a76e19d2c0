import Foundation
import ImageTables
import TestFixtures
import Testing
import Vips

@testable import ImageProcessing

@Suite("Rasterizer")
struct RasterizerTests {
  /// Opaque red, half-transparent (200, 100, 50), transparent, white.
  static func swatch() throws -> VipsImage {
    try VipsImage(
      pixels: [255, 0, 0, 255, 200, 100, 50, 128, 7, 8, 9, 0, 255, 255, 255, 255], width: 4,
      height: 1,
      bands: 4)
  }

  private func bytes(
    _ image: VipsImage, _ style: PixelStyle, background: RGBA = RGBA(255, 255, 255)
  )
    throws -> [UInt8]
  {
    let raster = try Rasterizer.prepare(
      image, style: style, background: background, slotWidth: image.width, slotHeight: image.height)
    let (bytes, bytesPerRow) = raster.bytes()
    #expect(bytesPerRow % 64 == 0)
    return Array(bytes[0..<(image.width * style.bytesPerPixel)])
  }

  @Test func bgra32IsPremultiplied() throws {
    #expect(
      try bytes(Self.swatch(), .bgra32) == [
        0, 0, 255, 255, 25, 50, 100, 128, 0, 0, 0, 0, 255, 255, 255, 255,
      ])
  }

  @Test func bgr32FlattensOntoTheBackground() throws {
    let result = try bytes(Self.swatch(), .bgr32)
    // Half over white: 50 x 128/255 + 255 x 127/255 = 152.1, 177.2, 227.4.
    let expected: [UInt8] = [
      0, 0, 255, 255, 152, 177, 227, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    ]
    for (value, wanted) in zip(result, expected) { #expect(abs(Int(value) - Int(wanted)) <= 1) }
    #expect(stride(from: 3, to: 16, by: 4).allSatisfy { result[$0] == 255 })
  }

  @Test func bgr555RoundsToFiveBits() throws {
    let image = try VipsImage(
      pixels: [132, 5, 4, 255, 0, 0, 0, 0, 255], width: 3, height: 1, bands: 3)
    // 132, 5, 4 -> 16, 1, 0 -> 0x4020; red -> 0x7C00; blue -> 0x001F.
    let packed = try bytes(image, .bgr555)
    #expect(packed == [0x20, 0x40, 0x00, 0x7C, 0x1F, 0x00], "\(packed)")
  }

  @Test func gray8IsLuminanceOverTheBackground() throws {
    let image = try VipsImage(
      pixels: [100, 100, 100, 255, 0, 0, 0, 0, 255, 0, 0, 255], width: 3, height: 1, bands: 4)
    let result = try bytes(image, .gray8, background: RGBA(200, 200, 200))
    #expect(result[0] == 100 && result[1] == 200)
    #expect((120...135).contains(result[2]), "pure red's luminance: \(result[2])")
  }

  @Test func largerThanTheSlotIsAnError() throws {
    let image = try VipsImage(
      pixels: [UInt8](repeating: 0, count: 5 * 5 * 3), width: 5, height: 5, bands: 3)
    #expect(
      throws: ProcessingError.largerThanSlot(
        format: "f", width: 5, height: 5, slotWidth: 4, slotHeight: 8)
    ) {
      try Rasterizer.prepare(
        image, style: .bgr32, background: RGBA(0, 0, 0), slotWidth: 4, slotHeight: 8, format: "f")
    }
  }

  /// A 48x48 fill of a photo in the given style, as bytes.
  private func rendered(_ path: String, _ style: PixelStyle = .bgra32) throws -> [UInt8] {
    let image = try run("fill", on: path, context(48, 48))
    return try Rasterizer.prepare(
      image, style: style, background: RGBA(255, 255, 255), slotWidth: 48, slotHeight: 48
    ).bytes().bytes
  }

  private func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
    var total = 0
    for index in a.indices { total += abs(Int(a[index]) - Int(b[index])) }
    return Double(total) / Double(a.count)
  }

  @Test func sixteenBitAndGreyWithAlphaComeOutRight() throws {
    let folder = try Photos.temporaryFolder()
    let plain = try VipsImage(file: Photos.bundled("astronaut.png"))
    let deep = folder.appendingPathComponent("deep.png").path
    try plain.linear([257], [0]).cast(to: .ushort).tagged(as: .rgb16).write(to: deep)
    #expect(try ImageHeader(file: deep).format == .ushort)
    #expect(meanDifference(try rendered(deep), try rendered(Photos.bundled("astronaut.png"))) < 1)
    let greyAlpha = folder.appendingPathComponent("grey-alpha.png").path
    try plain.toGreyscale().withAlpha().write(to: greyAlpha)
    #expect(try ImageHeader(file: greyAlpha).bands == 2)
    let grey = try rendered(greyAlpha)
    var neutral = true
    for offset in stride(from: 0, to: grey.count, by: 4)
    where grey[offset] != grey[offset + 1] || grey[offset + 1] != grey[offset + 2] {
      neutral = false
    }
    #expect(neutral, "grey with alpha came out coloured")
  }

  @Test(
    "every made photo comes out like the photo it was made from",
    arguments: Fixture.generated.filter { $0.original != nil })
  func madeLikeOriginal(_ fixture: Fixture) throws {
    // What each encoding loses, in mean levels of 255 at 48x48 (measured: CMYK 14.5,
    // a naive conversion read through libvips's CMYK profile; WebP 2.1; the JPEGs
    // at quality 95 about 1.1; GIF 0.9; AVIF 0.6; TIFF and HEIF 0.3; progressive 0.2;
    // 16-bit 0). The limits leave room for another libvips, not for a wrong picture.
    let limits: [String: Double] = [
      "coffee-cmyk.jpg": 20, "coffee.webp": 3, "chelsea.gif": 2, "chelsea.avif": 1.5,
      "chelsea.heic": 1, "hubble.tif": 1, "retina-progressive.jpg": 1, "retina-grey.jpg": 1,
      "astronaut-16bit.png": 0.5,
    ]
    guard let original = fixture.original else { return }
    // Greyscale fixtures are compared in grey, the rest as they are.
    let style: PixelStyle = fixture.name.contains("grey") ? .gray8 : .bgr32
    let difference = meanDifference(
      try rendered(fixture.path(), style), try rendered(Fixtures.photo(original), style))
    let limit = limits[fixture.name] ?? 2
    #expect(difference < limit, "\(fixture): mean difference \(difference)")
  }

  @Test("every style of every photo fixture", arguments: PixelStyle.allCases)
  func everyPhotoInEveryStyle(_ style: PixelStyle) throws {
    for fixture in Fixture.photos {
      let bytes = try rendered(fixture.path(), style)
      #expect(
        bytes.count == EntryLayout(width: 48, height: 48, style: style).bytesPerEntry, "\(fixture)")
    }
  }
}

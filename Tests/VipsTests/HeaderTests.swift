import Foundation
import Testing

@testable import Vips

@Suite("Header probe")
struct HeaderTests {
  struct Expected: Sendable, CustomTestStringConvertible {
    let file: String
    let width: Int, height: Int, bands: Int
    let format: BandFormat, interpretation: Interpretation
    let loader: String, orientation: Int, alpha: Bool, icc: Bool
    var testDescription: String { file }
  }

  /// Sizes from the fixtures' README; the rest as the files were made.
  static let sharedPhotos: [Expected] = [
    .init(
      file: "arc-alpha.png", width: 2140, height: 1200, bands: 4, format: .uchar,
      interpretation: .srgb, loader: "pngload", orientation: 1, alpha: true, icc: false),
    .init(
      file: "astronaut-16bit.png", width: 512, height: 512, bands: 3, format: .ushort,
      interpretation: .rgb16, loader: "pngload", orientation: 1, alpha: false, icc: false),
    .init(
      file: "astronaut.png", width: 512, height: 512, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "pngload", orientation: 1, alpha: false, icc: true),
    .init(
      file: "chelsea-exif6.jpg", width: 300, height: 451, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 6, alpha: false, icc: false),
    .init(
      file: "chelsea-roundmask-alpha.png", width: 451, height: 300, bands: 4, format: .uchar,
      interpretation: .srgb, loader: "pngload", orientation: 1, alpha: true, icc: true),
    .init(
      file: "chelsea.gif", width: 451, height: 300, bands: 3, format: .uchar, interpretation: .srgb,
      loader: "gifload", orientation: 1, alpha: false, icc: false),
    .init(
      file: "chelsea.png", width: 451, height: 300, bands: 3, format: .uchar, interpretation: .srgb,
      loader: "pngload", orientation: 1, alpha: false, icc: true),
    .init(
      file: "coffee.png", width: 600, height: 400, bands: 3, format: .uchar, interpretation: .srgb,
      loader: "pngload", orientation: 1, alpha: false, icc: false),
    .init(
      file: "coffee.webp", width: 600, height: 400, bands: 3, format: .uchar, interpretation: .srgb,
      loader: "webpload", orientation: 1, alpha: false, icc: false),
    .init(
      file: "colorfulcups-icc.jpg", width: 2560, height: 1600, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 1, alpha: false, icc: true),
    .init(
      file: "dune-cmyk.jpg", width: 1680, height: 1050, bands: 4, format: .uchar,
      interpretation: .cmyk, loader: "jpegload", orientation: 1, alpha: false, icc: false),
    .init(
      file: "dune.jpg", width: 1680, height: 1050, bands: 3, format: .uchar, interpretation: .srgb,
      loader: "jpegload", orientation: 1, alpha: false, icc: false),
    .init(
      file: "greenmeadow-progressive.jpg", width: 1280, height: 1024, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 1, alpha: false, icc: false),
    .init(
      file: "grey-bw.jpg", width: 2560, height: 1600, bands: 1, format: .uchar, interpretation: .bw,
      loader: "jpegload", orientation: 1, alpha: false, icc: false),
    .init(
      file: "hubble.jpg", width: 1000, height: 872, bands: 3, format: .uchar, interpretation: .srgb,
      loader: "jpegload", orientation: 1, alpha: false, icc: true),
    .init(
      file: "hubble.tif", width: 1000, height: 872, bands: 3, format: .uchar, interpretation: .srgb,
      loader: "tiffload", orientation: 1, alpha: false, icc: true),
    .init(
      file: "kleiber-20mp.jpg", width: 6028, height: 3391, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 1, alpha: false, icc: false),
    .init(
      file: "ladybird.jpg", width: 2560, height: 1600, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 1, alpha: false, icc: false),
    .init(
      file: "one-pixel.png", width: 1, height: 1, bands: 3, format: .uchar, interpretation: .srgb,
      loader: "pngload", orientation: 1, alpha: false, icc: false),
    .init(
      file: "owl-exif3.jpg", width: 600, height: 397, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 3, alpha: false, icc: false),
    .init(
      file: "owl-gray-alpha.png", width: 600, height: 397, bands: 2, format: .uchar,
      interpretation: .bw, loader: "pngload", orientation: 1, alpha: true, icc: false),
    .init(
      file: "owl.jpg", width: 600, height: 397, bands: 3, format: .uchar, interpretation: .srgb,
      loader: "jpegload", orientation: 1, alpha: false, icc: false),
    .init(
      file: "retina.jpg", width: 1411, height: 1411, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 1, alpha: false, icc: false),
    .init(
      file: "rocket.jpg", width: 640, height: 427, bands: 3, format: .uchar, interpretation: .srgb,
      loader: "jpegload", orientation: 1, alpha: false, icc: true),
  ]

  static let bundledNames = [
    "astronaut.png", "chelsea.png", "coffee.png", "hubble.jpg", "rocket.jpg",
  ]

  @Test("bundled photos", arguments: sharedPhotos.filter { bundledNames.contains($0.file) })
  func bundled(_ expected: Expected) throws {
    try check(ImageHeader(file: Fixtures.bundled(expected.file)), expected)
  }

  @Test(
    "every shared photo", .enabled(if: Fixtures.sharedAvailable, "../shared/fixtures is absent"),
    arguments: sharedPhotos)
  func shared(_ expected: Expected) throws {
    try check(ImageHeader(file: Fixtures.sharedPhoto(expected.file)), expected)
  }

  @Test(
    "the table covers every shared photo",
    .enabled(if: Fixtures.sharedAvailable, "../shared/fixtures is absent"))
  func coversEverySharedPhoto() {
    let names = Fixtures.files(in: Fixtures.shared.appendingPathComponent("photos"))
      .map { ($0 as NSString).lastPathComponent }
    #expect(names == Self.sharedPhotos.map(\.file))
  }

  @Test func displayedSizeFollowsOrientation() throws {
    let folder = try Fixtures.temporaryFolder()
    let header = try ImageHeader(file: Generated.exifRotatedJPEG(in: folder))
    #expect(header.orientation == 6)
    #expect((header.width, header.height) == (300, 451))
    #expect((header.displayWidth, header.displayHeight) == (451, 300))
  }

  @Test func bytesProbeMatchesFileProbe() throws {
    let path = Fixtures.bundled("rocket.jpg")
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(try ImageHeader(bytes: bytes) == ImageHeader(file: path))
  }

  private func check(_ header: ImageHeader, _ expected: Expected) {
    #expect(header.width == expected.width)
    #expect(header.height == expected.height)
    #expect(header.bands == expected.bands)
    #expect(header.format == expected.format)
    #expect(header.interpretation == expected.interpretation)
    #expect(header.loader == expected.loader)
    #expect(header.pages == 1)
    #expect(header.orientation == expected.orientation)
    #expect(header.hasAlpha == expected.alpha)
    #expect(header.hasICCProfile == expected.icc)
  }
}

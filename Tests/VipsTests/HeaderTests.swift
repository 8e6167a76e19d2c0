import Foundation
import TestFixtures
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

  /// What each photo fixture's header says, as the file was kept or made
  /// (Tests/Fixtures/README.md): stored size, before any orientation is applied.
  static let photos: [Expected] = [
    .init(
      file: "astronaut.png", width: 512, height: 512, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "pngload", orientation: 1, alpha: false,
      icc: true),
    .init(
      file: "chelsea.png", width: 451, height: 300, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "pngload", orientation: 1, alpha: false,
      icc: true),
    .init(
      file: "coffee.png", width: 600, height: 400, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "pngload", orientation: 1, alpha: false,
      icc: false),
    .init(
      file: "hubble.jpg", width: 1000, height: 872, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 1, alpha: false,
      icc: true),
    .init(
      file: "retina.jpg", width: 1411, height: 1411, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 1, alpha: false,
      icc: false),
    .init(
      file: "rocket.jpg", width: 640, height: 427, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 1, alpha: false,
      icc: true),
    .init(
      file: "coffee-cmyk.jpg", width: 600, height: 400, bands: 4, format: .uchar,
      interpretation: .cmyk, loader: "jpegload", orientation: 1, alpha: false,
      icc: false),
    .init(
      file: "chelsea.gif", width: 451, height: 300, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "gifload", orientation: 1, alpha: false,
      icc: false),
    .init(
      file: "hubble.tif", width: 1000, height: 872, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "tiffload", orientation: 1, alpha: false,
      icc: true),
    .init(
      file: "coffee.webp", width: 600, height: 400, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "webpload", orientation: 1, alpha: false,
      icc: false),
    .init(
      file: "chelsea.heic", width: 451, height: 300, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "heifload", orientation: 1, alpha: false,
      icc: false),
    .init(
      file: "chelsea.avif", width: 451, height: 300, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "heifload", orientation: 1, alpha: false,
      icc: false),
    .init(
      file: "retina-progressive.jpg", width: 1411, height: 1411, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 1, alpha: false,
      icc: false),
    .init(
      file: "astronaut-16bit.png", width: 512, height: 512, bands: 3, format: .ushort,
      interpretation: .rgb16, loader: "pngload", orientation: 1, alpha: false,
      icc: false),
    .init(
      file: "retina-grey.jpg", width: 1411, height: 1411, bands: 1, format: .uchar,
      interpretation: .bw, loader: "jpegload", orientation: 1, alpha: false,
      icc: false),
    .init(
      file: "chelsea-grey-alpha.png", width: 451, height: 300, bands: 2, format: .uchar,
      interpretation: .bw, loader: "pngload", orientation: 1, alpha: true,
      icc: false),
    .init(
      file: "chelsea-roundmask-alpha.png", width: 451, height: 300, bands: 4, format: .uchar,
      interpretation: .srgb, loader: "pngload", orientation: 1, alpha: true,
      icc: false),
    .init(
      file: "one-pixel.png", width: 1, height: 1, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "pngload", orientation: 1, alpha: false,
      icc: false),
    .init(
      file: "chelsea-exif1.jpg", width: 451, height: 300, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 1, alpha: false,
      icc: false),
    .init(
      file: "chelsea-exif2.jpg", width: 451, height: 300, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 2, alpha: false,
      icc: false),
    .init(
      file: "chelsea-exif3.jpg", width: 451, height: 300, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 3, alpha: false,
      icc: false),
    .init(
      file: "chelsea-exif4.jpg", width: 451, height: 300, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 4, alpha: false,
      icc: false),
    .init(
      file: "chelsea-exif5.jpg", width: 300, height: 451, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 5, alpha: false,
      icc: false),
    .init(
      file: "chelsea-exif6.jpg", width: 300, height: 451, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 6, alpha: false,
      icc: false),
    .init(
      file: "chelsea-exif7.jpg", width: 300, height: 451, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 7, alpha: false,
      icc: false),
    .init(
      file: "chelsea-exif8.jpg", width: 300, height: 451, bands: 3, format: .uchar,
      interpretation: .srgb, loader: "jpegload", orientation: 8, alpha: false,
      icc: false),
  ]

  @Test("every photo fixture", arguments: photos)
  func photo(_ expected: Expected) throws {
    try check(ImageHeader(file: Fixtures.path(expected.file)), expected)
  }

  @Test("the table covers every photo fixture")
  func coversEveryPhoto() throws {
    #expect(Self.photos.map(\.file) == Fixture.photos.map(\.name))
    // A file dropped into Tests/Fixtures/photos or bad/ without an entry in the fixture
    // lists (and so in this table) is noticed, and so is an entry whose file is gone.
    let listing = { (folder: String) throws -> [String] in
      try FileManager.default.contentsOfDirectory(
        atPath: Fixtures.folder.appendingPathComponent(folder).path
      ).sorted()
    }
    #expect(try listing("photos") == Fixture.photos.filter { !$0.isGenerated }.map(\.name).sorted())
    #expect(try listing("bad") == Fixture.badInputs.filter { !$0.isGenerated }.map(\.name).sorted())
  }

  @Test func displayedSizeFollowsOrientation() throws {
    let folder = try Fixtures.temporaryFolder()
    let header = try ImageHeader(file: Generated.exifRotatedJPEG(in: folder))
    #expect(header.orientation == 6)
    #expect((header.width, header.height) == (300, 451))
    #expect((header.displayWidth, header.displayHeight) == (451, 300))
  }

  @Test func bytesProbeMatchesFileProbe() throws {
    let path = Fixtures.photo("rocket.jpg")
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

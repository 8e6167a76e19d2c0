import Foundation
import TestFixtures
import Testing

@testable import Vips

@Suite("Thumbnails")
struct ThumbnailTests {
  private func thumb(_ path: String, _ width: Int = 128, options: ThumbnailOptions = .init())
    throws -> VipsImage
  {
    try VipsImage.thumbnail(file: path, width: width, options: options).toSRGB()
  }

  @Test func fitsTheBoxAndKeepsAspect() throws {
    let image = try VipsImage.thumbnail(file: Fixtures.photo("rocket.jpg"), width: 100)
    // 640x427 inside 100x100: 100 wide, 427 * 100 / 640 = 66.7 high.
    #expect((image.width, image.height) == (100, 67))
  }

  @Test(arguments: [Interesting.centre, .attention, .entropy])
  func cropFillsTheBoxExactly(_ crop: Interesting) throws {
    let image = try VipsImage.thumbnail(
      file: Fixtures.photo("coffee.png"), width: 64, height: 48, options: .init(crop: crop))
    #expect((image.width, image.height) == (64, 48))
  }

  @Test func sizeModes() throws {
    let path = Fixtures.photo("chelsea.png")  // 451x300
    let down = try VipsImage.thumbnail(file: path, width: 1000, options: .init(size: .down))
    #expect((down.width, down.height) == (451, 300))
    let up = try VipsImage.thumbnail(file: path, width: 1000, options: .init(size: .up))
    #expect((up.width, up.height) == (1000, 665))
    let force = try VipsImage.thumbnail(
      file: path, width: 50, height: 50, options: .init(size: .force))
    #expect((force.width, force.height) == (50, 50))
  }

  @Test func bytesGiveTheSamePixelsAsTheFile() throws {
    let path = Fixtures.photo("hubble.jpg")
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let fromBytes = try VipsImage.thumbnail(bytes: bytes, width: 96).writePixels()
    let fromFile = try VipsImage.thumbnail(file: path, width: 96).writePixels()
    #expect(fromBytes == fromFile)
  }

  /// A JPEG stored sideways with orientation 6, made here from the bundled cat.
  @Test func exifOrientationIsAppliedOnGeneratedPhoto() throws {
    let folder = try Fixtures.temporaryFolder()
    let rotated = try thumb(Generated.exifRotatedJPEG(in: folder))
    let upright = try thumb(Fixtures.photo("chelsea.png"))
    #expect((rotated.width, rotated.height) == (128, 85))
    // Only the JPEG re-encoding (quality 95) separates them: under 2 levels on average,
    // where the unrotated picture is tens of levels off.
    #expect(try rotated.meanAbsoluteDifference(to: upright) < 2)
  }

  @Test("every EXIF orientation shows the picture upright", arguments: Fixture.orientations)
  func exifOrientations(_ fixture: Fixture) throws {
    let path = try fixture.path()
    let orientation = try ImageHeader(file: path).orientation
    let rotated = try thumb(path)
    let upright = try thumb(Fixtures.photo("chelsea.png"))
    #expect((rotated.width, rotated.height) == (128, 85))
    // Only the JPEG re-encoding (quality 95) separates them: under 2 levels on average.
    let difference = try rotated.meanAbsoluteDifference(to: upright)
    #expect(difference < 2, "\(fixture): mean absolute difference \(difference)")
    // The stored pixels are not the picture (but for 1), so the check above can fail.
    let stored = try VipsImage(file: path).toSRGB()
    if orientation >= 5 {
      #expect((stored.width, stored.height) == (300, 451))
    } else if orientation >= 2 {
      let original = try VipsImage(file: Fixtures.photo("chelsea.png")).toSRGB()
      #expect(try stored.meanAbsoluteDifference(to: original) > 10)
    }
  }

  @Test("CMYK comes out sRGB close to the RGB original")
  func cmyk() throws {
    let cmyk = try thumb(Fixtures.path("coffee-cmyk.jpg"))
    let rgb = try thumb(Fixtures.photo("coffee.png"))
    #expect(cmyk.interpretation == .srgb && cmyk.format == .uchar && cmyk.bands == 3)
    // The file has no profile, so libvips's built-in CMYK profile is used; the fixture
    // was made with a naive conversion, so the two differ by several levels on average.
    // Ink read as light (inverted CMYK) would be ~100 off.
    let difference = try cmyk.meanAbsoluteDifference(to: rgb)
    #expect(difference < 20, "mean absolute difference \(difference)")
  }

  @Test("pixels made sRGB carry no profile, so they are converted once")
  func sRGBIsFinal() throws {
    // libvips's CMYK -> sRGB conversion attaches the CMYK profile it used (~1 MB); left
    // there, every later toSRGB() (the circle, the ring) applied it again.
    for name in ["coffee-cmyk.jpg", "astronaut-16bit.png", "hubble.jpg"] {
      let decoded = try VipsImage(file: Fixtures.path(name))
      let once = try decoded.toSRGB()
      #expect(!once.hasICCProfile, "\(name)")
      #expect(once.interpretation == .srgb && once.format == .uchar)
      #expect(try once.toSRGB() === once, "\(name)")
    }
  }

  @Test("16-bit comes out 8-bit equal to the 8-bit original")
  func sixteenBit() throws {
    let deep = try thumb(Fixtures.path("astronaut-16bit.png"))
    let plain = try thumb(Fixtures.photo("astronaut.png"))
    #expect(deep.format == .uchar && deep.interpretation == .srgb)
    #expect(try deep.meanAbsoluteDifference(to: plain) < 1)
  }

  @Test func sixteenBitMadeHereComesOut8Bit() throws {
    let plain = try VipsImage(file: Fixtures.photo("astronaut.png"))
    let deep = try plain.linear([257], [0]).cast(to: .ushort).tagged(as: .rgb16)
    #expect(deep.format == .ushort && deep.interpretation == .rgb16)
    let eight = try deep.toSRGB()
    #expect(eight.format == .uchar && eight.interpretation == .srgb)
    #expect(try eight.writePixels() == plain.writePixels())
  }

  @Test("greyscale keeps one band")
  func greyscaleFixture() throws {
    let grey = try VipsImage.thumbnail(file: Fixtures.path("retina-grey.jpg"), width: 64)
      .toGreyscale()
    #expect(grey.bands == 1 && grey.interpretation == .bw && grey.format == .uchar)
  }

  @Test func greyscaleOfColourHasOneBandOfLuminance() throws {
    let red = try VipsImage(pixels: [255, 0, 0], width: 1, height: 1, bands: 3)
    let grey = try red.toGreyscale()
    #expect(grey.bands == 1)
    // Rec. 709 luminance of pure sRGB red is 0.2126 of white in linear light,
    // which is about 127 in sRGB's gamma.
    let level = try grey.pixel(x: 0, y: 0)[0]
    #expect((120...135).contains(level), "grey level \(level)")
  }

  @Test("alpha survives", arguments: ["chelsea-roundmask-alpha.png", "chelsea-grey-alpha.png"])
  func alphaFixture(_ name: String) throws {
    let path = try Fixtures.path(name)
    let original = try VipsImage(file: path)
    let image = try thumb(path, 90)  // 451x300 to 90x60
    #expect(image.bands == 4 && image.hasAlpha)
    // Transparent outside the rounded mask, opaque inside; shrinking five times keeps
    // the mean coverage.
    let alpha = try image.extractingBands(3)
    let originalAlpha = try original.extractingBands(original.bands - 1)
    #expect(try abs(alpha.average() - originalAlpha.average()) < 1)
    #expect(try image.pixel(x: 0, y: 0)[3] == 0)
    #expect(try image.pixel(x: 45, y: 30)[3] == 255)
  }

  @Test func alphaMadeHereSurvives() throws {
    let folder = try Fixtures.temporaryFolder()
    let cat = try VipsImage(file: Fixtures.photo("chelsea.png"))
    let disc = try VipsImage.roundedRectangleMask(width: 451, height: 300, radius: 150)
    let path = folder.appendingPathComponent("round.png").path
    try cat.masked(by: disc).write(to: path)
    let image = try thumb(path, 90)
    #expect(image.bands == 4)
    #expect(try image.pixel(x: 0, y: 0)[3] == 0)
    #expect(try image.pixel(x: 45, y: 30)[3] == 255)
  }

  @Test("every photo fixture thumbnails to 8-bit sRGB", arguments: Fixture.photos)
  func everyPhoto(_ fixture: Fixture) throws {
    let path = try fixture.path()
    let image = try thumb(path, 64)
    let header = try ImageHeader(file: path)
    #expect(image.format == .uchar && image.interpretation == .srgb)
    #expect(image.bands == (header.hasAlpha ? 4 : 3))
    // The default size mode enlarges too: even one-pixel.png fills the box.
    #expect(max(image.width, image.height) == 64)
    #expect(try image.maximum() > 0)
  }

  @Test func embeddedProfileIsAppliedAndDropped() throws {
    let image = try VipsImage.thumbnail(file: Fixtures.photo("rocket.jpg"), width: 64)
    #expect(image.header.hasICCProfile)
    let srgb = try image.toSRGB()
    #expect(!srgb.header.hasICCProfile && srgb.interpretation == .srgb)
  }
}

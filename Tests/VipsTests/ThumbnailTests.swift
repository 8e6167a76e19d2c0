import Foundation
import Testing

@testable import Vips

@Suite("Thumbnails")
struct ThumbnailTests {
  static let shared = Fixtures.sharedAvailable

  private func thumb(_ path: String, _ width: Int = 128, options: ThumbnailOptions = .init())
    throws -> VipsImage
  {
    try VipsImage.thumbnail(file: path, width: width, options: options).toSRGB()
  }

  @Test func fitsTheBoxAndKeepsAspect() throws {
    let image = try VipsImage.thumbnail(file: Fixtures.bundled("rocket.jpg"), width: 100)
    // 640x427 inside 100x100: 100 wide, 427 * 100 / 640 = 66.7 high.
    #expect((image.width, image.height) == (100, 67))
  }

  @Test(arguments: [Interesting.centre, .attention, .entropy])
  func cropFillsTheBoxExactly(_ crop: Interesting) throws {
    let image = try VipsImage.thumbnail(
      file: Fixtures.bundled("coffee.png"), width: 64, height: 48, options: .init(crop: crop))
    #expect((image.width, image.height) == (64, 48))
  }

  @Test func sizeModes() throws {
    let path = Fixtures.bundled("chelsea.png")  // 451x300
    let down = try VipsImage.thumbnail(file: path, width: 1000, options: .init(size: .down))
    #expect((down.width, down.height) == (451, 300))
    let up = try VipsImage.thumbnail(file: path, width: 1000, options: .init(size: .up))
    #expect((up.width, up.height) == (1000, 665))
    let force = try VipsImage.thumbnail(
      file: path, width: 50, height: 50, options: .init(size: .force))
    #expect((force.width, force.height) == (50, 50))
  }

  @Test func bytesGiveTheSamePixelsAsTheFile() throws {
    let path = Fixtures.bundled("hubble.jpg")
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let fromBytes = try VipsImage.thumbnail(bytes: bytes, width: 96).writePixels()
    let fromFile = try VipsImage.thumbnail(file: path, width: 96).writePixels()
    #expect(fromBytes == fromFile)
  }

  /// A JPEG stored sideways with orientation 6, made here from the bundled cat.
  @Test func exifOrientationIsAppliedOnGeneratedPhoto() throws {
    let folder = try Fixtures.temporaryFolder()
    let rotated = try thumb(Generated.exifRotatedJPEG(in: folder))
    let upright = try thumb(Fixtures.bundled("chelsea.png"))
    #expect((rotated.width, rotated.height) == (128, 85))
    // Only the JPEG re-encoding (quality 95) separates them: under 2 levels on average,
    // where the unrotated picture is tens of levels off.
    #expect(try rotated.meanAbsoluteDifference(to: upright) < 2)
  }

  @Test(
    "EXIF-rotated fixtures equal their upright originals", .enabled(if: shared),
    arguments: [("chelsea-exif6.jpg", "chelsea.png", 2.0), ("owl-exif3.jpg", "owl.jpg", 3.0)])
  func exifFixtures(rotatedName: String, uprightName: String, limit: Double) throws {
    let rotated = try thumb(Fixtures.sharedPhoto(rotatedName))
    let upright = try thumb(Fixtures.sharedPhoto(uprightName))
    #expect((rotated.width, rotated.height) == (upright.width, upright.height))
    // JPEG re-encoding alone: chelsea measured 0.5, owl 1.7 levels.
    let difference = try rotated.meanAbsoluteDifference(to: upright)
    #expect(difference < limit, "mean absolute difference \(difference)")
    // The picture upside down is far off, so the check can fail.
    #expect(try upright.rotated(quarterTurns: 2).meanAbsoluteDifference(to: upright) > 10)
  }

  @Test("CMYK comes out sRGB close to the RGB original", .enabled(if: shared))
  func cmyk() throws {
    let cmyk = try thumb(Fixtures.sharedPhoto("dune-cmyk.jpg"))
    let rgb = try thumb(Fixtures.sharedPhoto("dune.jpg"))
    #expect(cmyk.interpretation == .srgb && cmyk.format == .uchar && cmyk.bands == 3)
    // The file has no profile, so libvips's built-in CMYK profile is used; the fixture
    // was made with a naive conversion, and the two differ by about 15 levels on
    // average (measured 14.8). Ink read as light (inverted CMYK) would be ~100 off.
    let difference = try cmyk.meanAbsoluteDifference(to: rgb)
    #expect(difference < 20, "mean absolute difference \(difference)")
  }

  @Test("16-bit comes out 8-bit equal to the 8-bit original", .enabled(if: shared))
  func sixteenBit() throws {
    let deep = try thumb(Fixtures.sharedPhoto("astronaut-16bit.png"))
    let plain = try thumb(Fixtures.sharedPhoto("astronaut.png"))
    #expect(deep.format == .uchar && deep.interpretation == .srgb)
    #expect(try deep.meanAbsoluteDifference(to: plain) < 1)
  }

  @Test func sixteenBitMadeHereComesOut8Bit() throws {
    let plain = try VipsImage(file: Fixtures.bundled("astronaut.png"))
    let deep = try plain.linear([257], [0]).cast(to: .ushort).tagged(as: .rgb16)
    #expect(deep.format == .ushort && deep.interpretation == .rgb16)
    let eight = try deep.toSRGB()
    #expect(eight.format == .uchar && eight.interpretation == .srgb)
    #expect(try eight.writePixels() == plain.writePixels())
  }

  @Test("greyscale keeps one band", .enabled(if: shared))
  func greyscaleFixture() throws {
    let grey = try VipsImage.thumbnail(file: Fixtures.sharedPhoto("grey-bw.jpg"), width: 64)
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

  @Test("alpha survives", .enabled(if: shared))
  func alphaFixture() throws {
    let original = try VipsImage(file: Fixtures.sharedPhoto("arc-alpha.png"))
    let image = try thumb(Fixtures.sharedPhoto("arc-alpha.png"), 214)
    #expect(image.bands == 4 && image.hasAlpha)
    // The arc is translucent (alpha at most 122) on a transparent ground; shrinking
    // ten times keeps the mean coverage.
    let alpha = try image.extractingBands(3)
    let originalAlpha = try original.extractingBands(3)
    #expect(try alpha.maximum() <= 122 && alpha.maximum() > 60)
    #expect(try abs(alpha.average() - originalAlpha.average()) < 1)
    #expect(try image.pixel(x: 0, y: 0)[3] == 0)
  }

  @Test func alphaMadeHereSurvives() throws {
    let folder = try Fixtures.temporaryFolder()
    let cat = try VipsImage(file: Fixtures.bundled("chelsea.png"))
    let disc = try VipsImage.roundedRectangleMask(width: 451, height: 300, radius: 150)
    let path = folder.appendingPathComponent("round.png").path
    try cat.masked(by: disc).write(to: path)
    let image = try thumb(path, 90)
    #expect(image.bands == 4)
    #expect(try image.pixel(x: 0, y: 0)[3] == 0)
    #expect(try image.pixel(x: 45, y: 30)[3] == 255)
  }

  @Test(
    "every shared photo thumbnails to 8-bit sRGB", .enabled(if: shared),
    arguments: Fixtures.files(in: Fixtures.shared.appendingPathComponent("photos")))
  func everySharedPhoto(_ path: String) throws {
    let image = try thumb(path, 64)
    let header = try ImageHeader(file: path)
    #expect(image.format == .uchar && image.interpretation == .srgb)
    #expect(image.bands == (header.hasAlpha ? 4 : 3))
    // The default size mode enlarges too: even one-pixel.png fills the box.
    #expect(max(image.width, image.height) == 64)
    #expect(try image.maximum() > 0)
  }

  @Test func embeddedProfileIsAppliedAndDropped() throws {
    let image = try VipsImage.thumbnail(file: Fixtures.bundled("rocket.jpg"), width: 64)
    #expect(image.header.hasICCProfile)
    let srgb = try image.toSRGB()
    #expect(!srgb.header.hasICCProfile && srgb.interpretation == .srgb)
  }
}

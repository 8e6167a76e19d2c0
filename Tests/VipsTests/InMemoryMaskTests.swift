import Foundation
import TestFixtures
import Testing

@testable import Vips

/// The shim's in-memory join of a mask as alpha (`cvips_join_mask_in_memory`, what a
/// circle does to a resampled entry) against libvips's own `vips_bandjoin2`, and
/// `computePixels` viewing an image in memory against libvips writing it out.
@Suite("In-memory mask")
struct InMemoryMaskTests {
  /// An entry-sized 8-bit image in memory, as a family's resample leaves it: sRGB, or
  /// grey for a grey photo (one band).
  static func entry(_ fixture: Fixture, side: Int) throws -> VipsImage {
    var image = try VipsImage(file: fixture.path())
    if image.interpretation != .bw || image.hasAlpha { image = try image.toSRGB() }
    if image.hasAlpha { image = try image.extractingBands(0, count: image.bands - 1) }
    let scale = Double(side) / Double(max(image.width, image.height))
    return try image.castToUInt8().resizedByLibvips(scale: min(1, scale)).materialized()
  }

  /// The same image as a pipeline libvips computes on demand (a copy of it), which the
  /// in-memory paths decline.
  static func onDemand(_ image: VipsImage) throws -> VipsImage {
    let copy = try image.tagged(as: image.interpretation)
    #expect(!copy.isInMemory)
    return copy
  }

  @Test("the same bytes, header and fields as vips_bandjoin2", arguments: Fixture.photos)
  func sameAsBandjoin(_ fixture: Fixture) throws {
    for side in [64, 128, 256] {
      let image = try Self.entry(fixture, side: side)
      #expect(image.isInMemory, "\(fixture): the entry is not in memory")
      let mask = try VipsImage.roundedRectangleMask(
        width: image.width, height: image.height, radius: Double(min(image.width, image.height)) / 2
      )
      let ours = try image.masked(by: mask, metadata: [("imagetool-shape", "0,0,1,1,0.5")])
      #expect(ours.isInMemory, "\(fixture) \(side): the in-memory join declined")
      let theirs = try Self.onDemand(image).masked(
        by: mask, metadata: [("imagetool-shape", "0,0,1,1,0.5")])
      #expect(!theirs.isInMemory)
      #expect(
        (ours.width, ours.height, ours.bands, ours.format, ours.interpretation)
          == (theirs.width, theirs.height, theirs.bands, theirs.format, theirs.interpretation),
        "\(fixture) \(side)")
      #expect(ours.bands == image.bands + 1)
      #expect(ours.metadata("imagetool-shape") == "0,0,1,1,0.5")
      #expect(theirs.metadata("imagetool-shape") == "0,0,1,1,0.5")
      #expect(try ours.writePixels() == theirs.writePixels(), "\(fixture) \(side)")
      // The alpha is the mask, byte for byte; the colour is the entry's.
      let pixels = try ours.writePixels()
      let maskBytes = try mask.writePixels()
      let colour = try image.writePixels()
      let bands = image.bands
      var alphaMatches = true
      var colourMatches = true
      for pixel in 0..<maskBytes.count {
        if pixels[pixel * (bands + 1) + bands] != maskBytes[pixel] { alphaMatches = false }
        for band in 0..<bands
        where pixels[pixel * (bands + 1) + band] != colour[pixel * bands + band] {
          colourMatches = false
        }
      }
      #expect(alphaMatches && colourMatches, "\(fixture) \(side)")
    }
  }

  @Test func imagesNotInMemoryTakeLibvipsPathAndAlphaIsMultiplied() throws {
    let image = try Self.entry(Fixture.kept[0], side: 64)
    let mask = try VipsImage.roundedRectangleMask(
      width: image.width, height: image.height, radius: 10)
    // A mask computed on demand: declined, and libvips's bandjoin gives the same bytes.
    let lazyMask = try Self.onDemand(mask)
    let viaLibvips = try image.masked(by: lazyMask)
    #expect(!viaLibvips.isInMemory)
    #expect(try viaLibvips.writePixels() == image.masked(by: mask).writePixels())
    // With alpha, the alpha is multiplied by the mask (the shim's loop, in memory).
    let withAlpha = try image.joiningBands(image.extractingBands(1)).materialized()
    let cut = try withAlpha.masked(by: mask)
    #expect(cut.isInMemory && cut.bands == withAlpha.bands)
    let alpha = try withAlpha.extractingBands(withAlpha.bands - 1).writePixels()
    let maskBytes = try mask.writePixels()
    let cutAlpha = try cut.extractingBands(cut.bands - 1).writePixels()
    // Inside the shape the alpha stays, outside it is 0.
    #expect(maskBytes.contains(255) && maskBytes.contains(0))
    #expect((0..<alpha.count).allSatisfy { maskBytes[$0] != 255 || cutAlpha[$0] == alpha[$0] })
    #expect((0..<alpha.count).allSatisfy { maskBytes[$0] != 0 || cutAlpha[$0] == 0 })
  }

  /// Every alpha times every mask value (a 256x256 image whose alpha is its column, and
  /// a mask that is its row), grey with alpha and sRGB with alpha: the shim's loop gives
  /// libvips's multiply and linear byte for byte, and the same header and fields.
  @Test("an alpha multiplied by the mask in memory: libvips's operations, every product")
  func maskedAlphaIsLibvipsForEveryProduct() throws {
    let side = 256
    let ramp = [UInt8]((0..<side * side).map { UInt8($0 % side) })
    let rows = [UInt8]((0..<side * side).map { UInt8($0 / side) })
    let mask = try VipsImage(pixels: rows, width: side, height: side, bands: 1).materialized()
    let colour = try VipsImage(pixels: rows, width: side, height: side, bands: 1)
    let alpha = try VipsImage(pixels: ramp, width: side, height: side, bands: 1)
    for image in [
      try colour.joiningBands(alpha).tagged(as: .bw).materialized(),
      try colour.joiningBands(colour).joiningBands(colour).joiningBands(alpha)
        .tagged(as: .srgb).materialized(),
    ] {
      #expect(image.isInMemory && image.hasAlpha)
      let ours = try image.masked(by: mask, metadata: [("imagetool-shape", "0,0,1,1,0.5")])
      #expect(ours.isInMemory, "the in-memory path declined")
      let theirs = try Self.onDemand(image).maskedByOperations(Self.onDemand(mask))
        .settingMetadata("imagetool-shape", "0,0,1,1,0.5")
      #expect(!theirs.isInMemory)
      #expect(
        (ours.width, ours.height, ours.bands, ours.format, ours.interpretation)
          == (theirs.width, theirs.height, theirs.bands, theirs.format, theirs.interpretation))
      #expect(
        CodecDecodeChecks.comparable(ours.metadataFields)
          == CodecDecodeChecks.comparable(theirs.metadataFields))
      let bytes = try ours.writePixels()
      #expect(bytes == (try theirs.writePixels()))
      // Opaque stays the mask, a full mask keeps the alpha, nothing grows past the mask,
      // and the colour is untouched.
      let bands = image.bands
      func alphaAt(_ pixel: Int) -> Int { Int(bytes[pixel * bands + bands - 1]) }
      func colourAt(_ pixel: Int) -> Int { Int(bytes[pixel * bands]) }
      #expect((0..<side).allSatisfy { alphaAt(255 * side + $0) == $0 })
      #expect((0..<side).allSatisfy { alphaAt($0 * side + 255) == $0 })
      #expect((0..<side * side).allSatisfy { alphaAt($0) <= Int(rows[$0]) })
      #expect((0..<side * side).allSatisfy { colourAt($0) == Int(rows[$0]) })
    }
  }

  /// The fixtures with alpha, resampled to entry sizes: the same as libvips's operations.
  @Test(
    "a resampled photo with alpha, masked in memory: libvips's operations",
    arguments: ["chelsea-grey-alpha.png", "chelsea-roundmask-alpha.png"])
  func maskedPhotoWithAlphaIsLibvips(_ name: String) throws {
    let fixture = try #require(Fixture.named(name))
    var photo = try VipsImage(file: fixture.path())
    try #require(photo.hasAlpha, "\(name) has no alpha")
    photo = try photo.toSRGB().castToUInt8()
    for side in [64, 128, 256] {
      let scale = Double(side) / Double(max(photo.width, photo.height))
      let image = try photo.resizedByLibvips(scale: min(1, scale)).materialized()
      let mask = try VipsImage.roundedRectangleMask(
        width: image.width, height: image.height, radius: Double(min(image.width, image.height)) / 2
      )
      let ours = try image.masked(by: mask)
      #expect(ours.isInMemory, "\(fixture) \(side)")
      let theirs = try Self.onDemand(image).masked(by: mask)
      #expect(!theirs.isInMemory)
      #expect(
        (ours.width, ours.height, ours.bands, ours.interpretation)
          == (theirs.width, theirs.height, theirs.bands, theirs.interpretation))
      #expect(try ours.writePixels() == theirs.writePixels(), "\(fixture) \(side)")
    }
  }

  @Test(
    "computePixels views an image in memory: the bytes libvips writes", arguments: Fixture.photos)
  func computePixelsViewsMemory(_ fixture: Fixture) throws {
    let image = try Self.entry(fixture, side: 128)
    let viewed = try image.computePixels(onThisThread: true)
    let written = try Self.onDemand(image).computePixels(onThisThread: true)
    #expect(
      (viewed.width, viewed.height, viewed.bands) == (written.width, written.height, written.bands))
    #expect(viewed.bytes.count == written.bytes.count)
    #expect(viewed.bytes.elementsEqual(written.bytes), "\(fixture)")
    // A view of the image's own memory, not a copy: a second one points to the same bytes.
    #expect(try viewed.bytes.baseAddress == image.computePixels().bytes.baseAddress)
    #expect(written.bytes.baseAddress != viewed.bytes.baseAddress)
  }
}

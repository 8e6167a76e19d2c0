import Foundation
import TestFixtures
import Testing
import Vips

@testable import ImageProcessing

/// A photo's ICC profile is applied after each format's resample, to its few pixels, as
/// libvips's thumbnail applies an export profile after its resize, whenever every
/// pipeline of the decode resamples first; otherwise once, at the decode.
@Suite struct ColourManagementOrderTests {
  static func photo() throws -> [UInt8] { try SwappedPrimaries.twoHalves().pngData() }

  static func decode(_ specs: [String], box: Int = 100) throws -> SourceDecoder.Decoded {
    try SourceDecoder.decode(
      bytes: photo(), name: "halves.png",
      for: specs.map { (try registry.pipeline($0), context(box, box)) })
  }

  @Test func theDecodeKeepsTheProfileOnlyWhenEveryPipelineResamplesFirst() throws {
    #expect(try Self.decode(["fill"]).image.hasICCProfile)
    #expect(try Self.decode(["fit", "fill(crop: attention) | circle"]).image.hasICCProfile)
    #expect(
      try Self.decode(["crop(x: 0, y: 0, width: 150, height: 100) | fit"]).image.hasICCProfile)
    // A processor that looks at the pixels before any resample sees them managed.
    #expect(try !Self.decode(["fill", "sharpen | fill"]).image.hasICCProfile)
    #expect(try !Self.decode(["grayscale"]).image.hasICCProfile)
  }

  /// Only an 8-bit RGB photo keeps its profile: a CMYK one with a profile is made sRGB
  /// at the decode, whatever the pipelines.
  @Test func aCMYKPhotoWithAProfileIsMadeSRGBAtTheDecode() throws {
    let cmyk = try VipsImage(file: Fixtures.path("coffee-cmyk.jpg"))
      .embeddingICCProfile(VipsImage.builtInICCProfile("cmyk"))
    let jpeg = try cmyk.jpegData(quality: 95)
    let decoded = try SourceDecoder.decode(
      bytes: jpeg, name: "cmyk.jpg", for: [(try registry.pipeline("fill"), context(64, 64))])
    #expect(!decoded.image.hasICCProfile)
    #expect(decoded.image.interpretation == .srgb && decoded.image.bands == 3)
  }

  /// A pipeline that looks at the pixels before it resamples gets the decode made sRGB:
  /// the same entry as for the photo managed beforehand (stored without a profile).
  @Test(arguments: ["sharpen | fill", "grayscale", "flatten | fit"])
  func aPipelineThatLooksFirstSeesManagedPixels(spec: String) throws {
    let managedPNG = try SwappedPrimaries.twoHalves().toSRGB().pngData()
    let pipeline = try registry.pipeline(spec)
    var entries: [[UInt8]] = []
    for (bytes, name) in [(try Self.photo(), "halves.png"), (managedPNG, "managed.png")] {
      let decoded = try SourceDecoder.decode(
        bytes: bytes, name: name, for: [(pipeline, context(100, 100))])
      #expect(!decoded.image.hasICCProfile, "\(spec) \(name)")
      var processing = context(100, 100)
      processing.geometry = decoded.geometry
      entries.append(try pipeline.process(decoded.image, context: processing).writePixels())
    }
    #expect(entries[0] == entries[1], "\(spec)")
  }

  /// The entries show the colours the profile gives, whichever way the decode went:
  /// the attention crop finds the skin where it shows once managed (the left half).
  @Test(arguments: ["fill(crop: attention)", "fill(crop: centre)", "fit"])
  func entriesAreManagedAndCarryNoProfile(spec: String) throws {
    let managed = try SwappedPrimaries.twoHalves().toSRGB()
    let skinOnceManaged = try managed.pixel(x: 10, y: 50)
    let blueOnceManaged = try managed.pixel(x: 190, y: 50)
    for pipelines in [[spec], [spec, "sharpen | fill"]] {
      let decoded = try Self.decode(pipelines)
      var processing = context(100, 100)
      processing.geometry = decoded.geometry
      let entry = try registry.pipeline(spec).process(decoded.image, context: processing)
      #expect(!entry.hasICCProfile, "\(pipelines)")
      let left = try entry.pixel(x: 2, y: entry.height / 2)
      // The attention window reaches a few columns past the halves' border.
      let attention = spec.contains("attention")
      let right = try entry.pixel(
        x: attention ? entry.width / 2 : entry.width - 3, y: entry.height / 2)
      let expected =
        attention
        ? (skinOnceManaged, skinOnceManaged)
        : (skinOnceManaged, blueOnceManaged)
      for (ours, theirs) in [(left, expected.0), (right, expected.1)] {
        #expect(
          zip(ours, theirs).allSatisfy { abs($0 - $1) <= 1 },
          "\(pipelines): \(ours) is not \(theirs)")
      }
    }
  }
}

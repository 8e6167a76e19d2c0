import Foundation
import TestFixtures
import Testing

@testable import Vips

/// The shim's import of CMYK without a profile (`cvips_cmyk_to_xyz_cached`) against
/// libvips's own `vips_CMYK2XYZ`: the same float XYZ; and on to sRGB in the same pass
/// (`cvips_cmyk_to_srgb_cached`, what `toSRGB` uses), the same bytes as
/// `vips_colourspace`.
@Suite("CMYK import in process", .serialized)
struct CMYKImportTests {
  /// Every CMYK value on a grid of 9 levels per band (6,561 pixels), tagged CMYK.
  static func grid() throws -> VipsImage {
    let levels: [UInt8] = [0, 1, 31, 64, 127, 128, 191, 254, 255]
    var pixels: [UInt8] = []
    for c in levels {
      for m in levels { for y in levels { for k in levels { pixels += [c, m, y, k] } } }
    }
    return try VipsImage(pixels: pixels, width: 81, height: 81, bands: 4).tagged(as: .cmyk)
      .materialized()
  }

  static func photos() throws -> [(String, VipsImage)] {
    [
      ("coffee-cmyk.jpg", try VipsImage(file: Fixtures.path("coffee-cmyk.jpg")).materialized()),
      ("the grid", try grid()),
      (
        "lcms's grid levels, their neighbours, random values",
        try VipsImage(pixels: ICCTransformTests.cmykSamples(), width: 1024, height: 1024, bands: 4)
          .tagged(as: .cmyk).materialized()
      ),
    ]
  }

  @Test func theImportIsLibvipsFloats() async throws {
    try await ComputeExecutor.run {
      for (label, image) in try Self.photos() {
        #expect(image.interpretation == .cmyk && image.bands == 4 && !image.hasICCProfile)
        let ours = try #require(try image.cmykToXYZInProcess(), "\(label): declined")
        let theirs = try image.colourspaceByLibvips(.xyz)
        #expect((ours.format, ours.bands, ours.interpretation) == (.float, 3, .xyz), "\(label)")
        #expect((theirs.format, theirs.bands) == (.float, 3), "\(label)")
        #expect(try ours.writePixels() == theirs.writePixels(), "\(label): the floats differ")
      }
    }
  }

  /// The import and the steps on to sRGB in one pass: vips_colourspace's bytes, from the
  /// AVX2 loops (the grid and the steps to sRGB, eight pixels at a time) and from the
  /// scalar ones (the rest of a row, and every pixel without AVX2), with rows of every
  /// length from 1 to 17 for the vector loops' ends.
  @Test(arguments: [false, true])
  func theOnePassToSRGBIsLibvipsBytes(scalar: Bool) async throws {
    try await ComputeExecutor.run {
      let samples = try Self.photos()[2].1
      let narrow = try (1...17).map { width in
        (
          "a row of \(width)",
          try samples.cropped(left: 3, top: 29 * width, width: width, height: 2)
        )
      }
      func check() throws {
        for (label, image) in try Self.photos() + narrow {
          let ours = try #require(try image.cmykToSRGBInProcess(), "\(label): declined")
          let theirs = try image.colourspaceByLibvips(.srgb)
          #expect(
            (ours.format, ours.bands, ours.interpretation) == (.uchar, 3, .srgb), "\(label)")
          #expect((theirs.format, theirs.bands) == (.uchar, 3), "\(label)")
          #expect(
            try ours.writePixels() == theirs.writePixels(),
            "\(label), scalar \(scalar): the bytes differ")
        }
      }
      try KernelPaths.run(scalar: scalar, check)
    }
  }

  @Test func toSRGBGivesLibvipsBytes() throws {
    for (label, image) in try Self.photos() {
      let ours = try image.toSRGB()
      let theirs = try image.colourspaceByLibvips(.srgb).castToUInt8()
      #expect((ours.bands, ours.format) == (3, .uchar), "\(label)")
      #expect(try ours.writePixels() == theirs.writePixels(), "\(label)")
    }
  }

  /// toSRGB goes through the shim's import, whose transform is built once however many
  /// images use it.
  @Test func toSRGBUsesOneTransformForEveryImage() throws {
    let image = try VipsImage(file: Fixtures.path("coffee-cmyk.jpg")).materialized()
    let before = VipsImage.cmykImportCounts
    for _ in 0..<3 { _ = try image.toSRGB().materialized() }
    let after = VipsImage.cmykImportCounts
    #expect(after.made - before.made >= 3)
    #expect(after.built == 1)
  }

  /// CMYK with a fifth band, or not 8-bit, is left to libvips.
  @Test func otherImagesAreDeclined() throws {
    let cmyk = try Self.grid()
    #expect(
      try cmyk.joiningBands(cmyk.extractingBands(0)).tagged(as: .cmyk)
        .cmykToXYZInProcess() == nil)
    #expect(try cmyk.cast(to: .ushort).tagged(as: .cmyk).cmykToXYZInProcess() == nil)
    #expect(try cmyk.tagged(as: .srgb).extractingBands(0, count: 3).cmykToXYZInProcess() == nil)
    #expect(
      try cmyk.joiningBands(cmyk.extractingBands(0)).tagged(as: .cmyk)
        .cmykToSRGBInProcess() == nil)
    #expect(try cmyk.cast(to: .ushort).tagged(as: .cmyk).cmykToSRGBInProcess() == nil)
  }
}

import Foundation
import TestFixtures
import Testing

@testable import Vips

/// The shim's in-memory enlargement (Enlarge.c) against libvips's own `vips_resize`
/// (`vips_affine` with its bicubic interpolator): the same sizes and the same bytes, for
/// photos small enough to be enlarged into a family's formats, the smallest images there
/// are, every band count, and windows of the result.
@Suite("In-memory enlargement")
struct EnlargeTests {
  /// `image` shrunk by libvips to `side` pixels on its shorter side, as a new image of
  /// those pixels: a small source photo, as a web avatar is. A new image, because
  /// libvips's own enlargement depends on how its output is asked for: made from a
  /// reduce (whose demand style, "small tiles", its copy keeps), it is computed in tiles
  /// 128 wide whose positions restart at each tile's left, and a few samples differ by a
  /// level or two from the same enlargement asked for in whole rows, as a decode's
  /// (and the thumbnail's, from a file) is.
  static func small(_ image: VipsImage, side: Int) throws -> VipsImage {
    let scale = Double(side) / Double(min(image.width, image.height))
    let shrunk = try image.resizedByLibvips(scale: scale)
    return try VipsImage(
      pixels: shrunk.writePixels(), width: shrunk.width, height: shrunk.height,
      bands: shrunk.bands)
  }

  /// What a fill asks of a source `short` pixels on its shorter side (the shorter side to
  /// 256, 128 and 64), and, for the smallest, uneven and odd scales: an axis kept at 1,
  /// barely above 1, large.
  static func scales(short: Int) -> [(Double, Double)] {
    let fill = [256.0, 128, 64].map { $0 / Double(short) }.filter { $0 > 1 }.map { ($0, $0) }
    guard short < 50 else { return fill }
    return fill + [(1.5, 1.5), (2, 3), (1, 2.5), (3.7, 1), (1.0001, 1.0001), (7.3, 7.3)]
  }

  static func expectSameAsLibvips(_ image: VipsImage, _ h: Double, _ v: Double, _ label: String)
    throws
  {
    let label = "\(label) \(image.width)x\(image.height)x\(image.bands) at \(h)x\(v)"
    let ours = try #require(
      try image.resizedInMemory(scale: h, verticalScale: v), "\(label): declined")
    let theirs = try image.resizedByLibvips(scale: h, verticalScale: v)
    #expect((ours.width, ours.height) == (theirs.width, theirs.height), "\(label)")
    #expect((ours.bands, ours.format) == (theirs.bands, theirs.format), "\(label)")
    expectSameSamples(try ours.writePixels(), try theirs.writePixels(), label)
  }

  /// The enlargement runs with AVX2 where the processor has it (3 and 4 bands: each
  /// column's four neighbouring pixels at once, eight output samples at a time) and as
  /// scalar loops otherwise: both, against libvips.
  @Test(
    "small photos enlarged, vector and scalar: vips_resize's sizes and bytes",
    arguments: Fixture.photos, [false, true])
  func smallPhotosSameAsLibvips(_ fixture: Fixture, scalar: Bool) async throws {
    try await ComputeExecutor.run {
      // Grey photos stay grey (1 band, or 2 with alpha), as a render resizes them.
      let file = try VipsImage(file: fixture.path())
      let photo = try (file.bands <= 2 && file.format == .uchar ? file : file.toSRGB())
        .materialized()
      let images = try [199, 100, 33].map { try Self.small(photo, side: $0) }
      try KernelPaths.run(scalar: scalar) {
        for image in images {
          for (h, v) in Self.scales(short: min(image.width, image.height)) {
            try Self.expectSameAsLibvips(image, h, v, "\(fixture), scalar \(scalar)")
          }
        }
      }
    }
  }

  /// 1 x 1 (a tracking pixel), single rows and columns, 2 x 2: every tap of the 4 x 4
  /// window falls on the copied border; 1 to 4 bands of varied samples; widths around
  /// the vector loop's edge (a 16-byte load inside the row: 5, 6 and 7 pixels of 3
  /// bands).
  @Test(
    "the smallest images and every band count, vector and scalar: vips_resize's bytes",
    arguments: [false, true])
  func smallestImagesSameAsLibvips(scalar: Bool) throws {
    try KernelPaths.run(scalar: scalar) {
      for bands in 1...4 {
        for (width, height) in [
          (1, 1), (1, 7), (9, 1), (2, 2), (3, 5), (5, 3), (6, 4), (7, 2), (17, 11),
        ] {
          let pixels = (0..<(width * height * bands)).map {
            UInt8(truncatingIfNeeded: $0 &* 97 &+ 13)
          }
          let image = try VipsImage(pixels: pixels, width: width, height: height, bands: bands)
          let fill = (256 / Double(width), 256 / Double(height))
          for (h, v) in [fill, (31.5, 64), (1.5, 1), (1, 3), (7.25, 2.25)] {
            try Self.expectSameAsLibvips(image, h, v, "made, scalar \(scalar)")
          }
        }
      }
    }
  }

  /// Windows of the enlargement, on both paths: the resize cropped, byte for byte, and
  /// the same as libvips's whole resize then cropped, as its thumbnail crops (a crop of
  /// a lazy resize would restart the affine's column positions at the crop's left); a
  /// photo and made images of 1, 3 and 4 bands, windows that start past the left and end
  /// before the right (the vector loop's last columns and its write one int past them).
  @Test("a window of the enlargement is the enlargement cropped", arguments: [false, true])
  func windowIsTheCrop(scalar: Bool) throws {
    let photo = try VipsImage(file: Fixtures.photo("rocket.jpg")).toSRGB().materialized()
    let made = try [1, 3, 4].map { bands in
      try VipsImage(
        pixels: (0..<(41 * 29 * bands)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) },
        width: 41, height: 29, bands: bands)
    }
    try KernelPaths.run(scalar: scalar) {
      for image in [try Self.small(photo, side: 199)] + made {
        let short = Double(min(image.width, image.height))
        for (h, v) in [(256 / short, 256 / short), (2.0, 3.0), (1, 1.7)] {
          let whole = try #require(try image.resizedInMemory(scale: h, verticalScale: v))
          let (width, height) = (whole.width, whole.height)
          let side = min(width, height)
          let windows = [
            PixelRect(x: (width - side) / 2, y: (height - side) / 2, width: side, height: side),
            PixelRect(x: width - 1, y: height - 1, width: 1, height: 1),
            PixelRect(x: 0, y: 0, width: width, height: height),
            PixelRect(x: width / 3, y: 5, width: width / 2, height: height - 9),
            PixelRect(x: 7, y: 0, width: width - 9, height: height - 1),
          ]
          for window in windows {
            let label = "\(image.bands) bands \(h)x\(v) window \(window), scalar \(scalar)"
            let part = try #require(
              try image.resizedInMemory(scale: h, verticalScale: v, cropping: window), "\(label)")
            let cropped = try whole.cropped(
              left: window.x, top: window.y, width: window.width, height: window.height)
            #expect(try part.writePixels() == cropped.writePixels(), "\(label)")
            let theirs = try image.resizedByLibvips(scale: h, verticalScale: v).materialized()
              .cropped(left: window.x, top: window.y, width: window.width, height: window.height)
            #expect(try part.writePixels() == theirs.writePixels(), "\(label): libvips's crop")
          }
        }
      }
    }
  }

  /// What the exactness of a fill is judged by: libvips's thumbnail of a small photo,
  /// centre-cropped to a square, and the enlargement's centre window, the same bytes
  /// (the photo made 100x66 and 66x100, and noise of 41x29, each as a PNG).
  @Test("a small photo's centre fill is libvips's thumbnail, byte for byte")
  func centreFillIsLibvipsThumbnail() throws {
    let photo = try VipsImage(file: Fixtures.photo("rocket.jpg")).toSRGB().materialized()
    let noise = try VipsImage(
      pixels: (0..<(41 * 29 * 3)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) },
      width: 41, height: 29, bands: 3)
    let images = [
      try photo.resizedByLibvips(
        scale: 100 / Double(photo.width), verticalScale: 66 / Double(photo.height)),
      try photo.resizedByLibvips(
        scale: 66 / Double(photo.width), verticalScale: 100 / Double(photo.height)),
      noise,
    ]
    for made in images {
      let png = try made.pngData()
      let image = try VipsImage(bytes: png, name: "small.png").materialized()
      for side in [256, 128, 64] {
        let scale = Double(side) / Double(min(image.width, image.height))
        let (width, height) = (
          Int(Double(image.width) * scale + 0.5), Int(Double(image.height) * scale + 0.5)
        )
        let window = PixelRect(
          x: (width - side) / 2, y: (height - side) / 2, width: side, height: side)
        let ours = try #require(
          try image.resizedInMemory(scale: scale, verticalScale: scale, cropping: window))
        let theirs = try VipsImage.thumbnail(
          bytes: png, name: "small.png", width: side, height: side, options: .init(crop: .centre))
        let label = "\(image.width)x\(image.height) to \(side)"
        #expect((theirs.width, theirs.height) == (side, side), "\(label)")
        #expect(try ours.writePixels() == theirs.writePixels(), "\(label)")
      }
    }
  }

  /// A render resizes a photo with alpha premultiplied, in float, as libvips's thumbnail
  /// does: enlarging one stays with libvips there (not this 8-bit path), and gives
  /// libvips's bytes.
  @Test func premultipliedEnlargementStaysWithLibvips() throws {
    let image = try VipsImage(file: Fixtures.path("chelsea-roundmask-alpha.png")).materialized()
    #expect(image.hasAlpha)
    #expect(try image.resizedPremultipliedInMemory(scale: 1.5, verticalScale: 1.5) == nil)
    let ours = try image.resizedPremultiplied(scale: 1.5)
    let theirs = try image.premultipliedResizedByLibvips(scale: 1.5, verticalScale: 1.5)
    #expect((ours.width, ours.height) == (theirs.width, theirs.height))
    #expect(try ours.writePixels() == theirs.writePixels())
  }

  /// What stays with libvips: one axis shrinking while the other grows (vips_resize
  /// reduces that axis first), 16-bit samples, an image not in memory; each still gives
  /// vips_resize's result through ``VipsImage/resized(scale:verticalScale:)``.
  @Test("mixed scales, 16 bits and lazy images are declined, and libvips answers")
  func othersAreDeclined() throws {
    let path = Fixtures.photo("chelsea.png")
    let memory = try VipsImage(file: path).materialized()
    #expect(try memory.resizedInMemory(scale: 1.5, verticalScale: 0.5) == nil)
    let wide = try memory.cast(to: .ushort).materialized()
    #expect(try wide.resizedInMemory(scale: 1.5, verticalScale: 1.5) == nil)
    let lazy = try VipsImage(file: path)
    #expect(try lazy.resizedInMemory(scale: 1.5, verticalScale: 1.5) == nil)
    // Above vips_resize's largest scale (10,000,000) libvips refuses, and so does this.
    let pixel = try VipsImage(pixels: [1, 2, 3], width: 1, height: 1, bands: 3)
    #expect(try pixel.resizedInMemory(scale: 3e7, verticalScale: 1) == nil)
    #expect(throws: VipsError.self) { try pixel.resized(scale: 3e7, verticalScale: 1) }
    for image in [memory, wide, lazy] {
      let ours = try image.resized(scale: 1.5, verticalScale: 0.5)
      let theirs = try image.resizedByLibvips(scale: 1.5, verticalScale: 0.5)
      #expect((ours.width, ours.height) == (677, 150))
      #expect(try ours.writePixels() == theirs.writePixels())
    }
  }
}

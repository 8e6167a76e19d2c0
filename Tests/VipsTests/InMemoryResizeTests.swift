import Foundation
import TestFixtures
import Testing

@testable import Vips

/// The shim's in-memory resize and attention measure against libvips's own
/// `vips_resize` and `vips_smartcrop`, on every photo the tests keep or make.
@Suite("In-memory resize")
struct InMemoryResizeTests {
  /// Every fixture photo, 8-bit and decoded into memory as a family decode is.
  static func decoded(_ fixture: Fixture) throws -> VipsImage {
    try VipsImage(file: fixture.path()).toSRGB().materialized()
  }

  /// The scales a family asks for (the shorter side to 256, 128 and 64, the longer side
  /// to 32: the attention miniature), and uneven ones on each axis.
  static func scales(_ image: VipsImage) -> [(Double, Double)] {
    let short = Double(min(image.width, image.height))
    return [
      (256 / short, 256 / short), (128 / short, 128 / short), (64 / short, 64 / short),
      (32 / Double(image.width), 32 / Double(image.height)), (0.5, 0.5), (0.9, 0.13),
      (1, 0.5), (0.37, 1),
    ].filter { $0.0 <= 1 && $0.1 <= 1 }
  }

  @Test("the same sizes and pixels as vips_resize", arguments: Fixture.photos)
  func sameAsLibvips(_ fixture: Fixture) throws {
    let image = try Self.decoded(fixture)
    for (h, v) in Self.scales(image) {
      let inMemory = try image.resizedInMemory(scale: h, verticalScale: v)
      #expect(inMemory != nil, "\(fixture) \(h)x\(v): the in-memory path declined")
      guard let ours = inMemory else { continue }
      let theirs = try image.resizedByLibvips(scale: h, verticalScale: v)
      #expect((ours.width, ours.height) == (theirs.width, theirs.height), "\(fixture) \(h)x\(v)")
      try Self.expectNearlyEqual(
        ours.writePixels(), theirs.writePixels(), "\(fixture) \(h)x\(v)")
    }
  }

  @Test("a window of the resize is the resize cropped, byte for byte", arguments: Fixture.photos)
  func windowIsTheCrop(_ fixture: Fixture) throws {
    let image = try Self.decoded(fixture)
    // The largest and smallest of the family's, and ones that keep or squeeze an axis.
    let scales = Self.scales(image).enumerated().filter { [0, 2, 5, 6, 7].contains($0.offset) }
    for (h, v) in scales.map(\.element) {
      let whole = try #require(try image.resizedInMemory(scale: h, verticalScale: v))
      let (width, height) = (whole.width, whole.height)
      let side = min(width, height)
      let windows = [
        PixelRect(x: (width - side) / 2, y: (height - side) / 2, width: side, height: side),
        PixelRect(x: width - 1, y: height - 1, width: 1, height: 1),
        PixelRect(
          x: width / 2, y: height / 3, width: width - width / 2, height: max(1, height / 2)),
      ]
      for window in windows {
        let label = "\(fixture) \(h)x\(v) window \(window)"
        let part = try image.resizedInMemory(scale: h, verticalScale: v, cropping: window)
        #expect(part != nil, "\(label): the in-memory path declined")
        guard let part else { continue }
        let cropped = try whole.cropped(
          left: window.x, top: window.y, width: window.width, height: window.height)
        #expect((part.width, part.height) == (window.width, window.height), "\(label)")
        #expect(try part.writePixels() == cropped.writePixels(), "\(label)")
      }
    }
  }

  @Test func aWindowOutsideTheResizeIsAnError() throws {
    let image = try VipsImage(file: Fixtures.photo("chelsea.png")).materialized()
    // 451x300 at 0.5 is 226x150.
    #expect(throws: VipsError.self) {
      try image.resized(scale: 0.5, cropping: PixelRect(x: 100, y: 0, width: 127, height: 150))
    }
    let edge = try image.resized(
      scale: 0.5, cropping: PixelRect(x: 100, y: 0, width: 126, height: 150))
    #expect((edge.width, edge.height) == (126, 150))
  }

  /// libvips accumulates its sampling position from the start of each region it
  /// computes, so where its regions start (which depends on its threads) a position can
  /// land one table phase away: a column or row up to 2 levels off (1.3% of the samples
  /// at most over these photos). Everywhere else the bytes are the same.
  static func expectNearlyEqual(_ a: [UInt8], _ b: [UInt8], _ label: String) {
    #expect(a.count == b.count, "\(label): \(a.count) samples against \(b.count)")
    let differing = zip(a, b).filter { $0 != $1 }
    let largest = differing.map { abs(Int($0) - Int($1)) }.max() ?? 0
    #expect(largest <= 2, "\(label): a sample is \(largest) levels off")
    #expect(
      differing.count * 40 <= a.count, "\(label): \(differing.count) of \(a.count) samples differ")
  }

  @Test("with alpha: the same as libvips's premultiplied resize", arguments: Fixture.photos)
  func premultipliedSameAsLibvips(_ fixture: Fixture) throws {
    var image = try Self.decoded(fixture)
    if !image.hasAlpha {
      // A varying alpha: the photo's own second band, so colour under faint pixels counts.
      image = try image.joiningBands(image.extractingBands(1)).materialized()
    }
    for (h, v) in Self.scales(image) {
      let inMemory = try image.resizedPremultipliedInMemory(scale: h, verticalScale: v)
      #expect(inMemory != nil, "\(fixture) \(h)x\(v): the in-memory path declined")
      guard let ours = inMemory else { continue }
      let theirs = try image.premultipliedResizedByLibvips(scale: h, verticalScale: v)
      #expect((ours.width, ours.height) == (theirs.width, theirs.height), "\(fixture) \(h)x\(v)")
      // Compared as they show: colour times alpha. Where alpha is small, colour is a
      // division by almost nothing, and a sampling position one phase away (see above)
      // moves it far; `faintColourKeepsItsValue` checks colour there.
      try Self.expectNearlyEqual(
        Self.visible(ours.writePixels(), bands: image.bands),
        Self.visible(theirs.writePixels(), bands: image.bands), "\(fixture) \(h)x\(v)")
    }
  }

  /// Each colour sample times its pixel's alpha / 255, rounded; alpha as it is.
  static func visible(_ samples: [UInt8], bands: Int) -> [UInt8] {
    var shown = samples
    for pixel in stride(from: 0, to: samples.count, by: bands) {
      let alpha = Int(samples[pixel + bands - 1])
      for band in 0..<(bands - 1) {
        shown[pixel + band] = UInt8((Int(samples[pixel + band]) * alpha + 127) / 255)
      }
    }
    return shown
  }

  /// One colour under alpha rising from 0 to 255 across: resampling premultiplied
  /// colour and alpha with the same weights leaves the colour itself unchanged wherever
  /// any alpha is left, however faint (where a division by a tiny alpha decides it).
  @Test func faintColourKeepsItsValue() throws {
    let (width, height) = (256, 64)
    var samples: [UInt8] = []
    for _ in 0..<height {
      for x in 0..<width { samples += [200, 100, 50, UInt8(x)] }
    }
    let image = try VipsImage(pixels: samples, width: width, height: height, bands: 4)
      .materialized()
    for scale in [0.3, 0.25, 64.0 / 256] {
      let ours = try #require(
        try image.resizedPremultipliedInMemory(scale: scale, verticalScale: scale))
      let theirs = try image.premultipliedResizedByLibvips(scale: scale)
      let a = try ours.writePixels()
      #expect(a.count == (try theirs.writePixels()).count)
      let largest = zip(a, try theirs.writePixels()).map { abs(Int($0) - Int($1)) }.max() ?? 0
      #expect(largest <= 1, "scale \(scale): \(largest) levels from libvips's")
      for pixel in stride(from: 0, to: a.count, by: 4) where a[pixel + 3] > 0 {
        let colour = a[pixel..<pixel + 3].map(Int.init)
        #expect(
          abs(colour[0] - 200) <= 1 && abs(colour[1] - 100) <= 1 && abs(colour[2] - 50) <= 1,
          "scale \(scale), alpha \(a[pixel + 3]): colour \(colour)")
      }
    }
  }

  @Test("a decode of a family shrinks with no difference at all")
  func familySizesAreExact() throws {
    // hubble.jpg 1000x872 to the avatar sizes: libvips's regions start on the first
    // row and column here, so every byte is the same.
    let image = try VipsImage(file: Fixtures.photo("hubble.jpg")).toSRGB().materialized()
    for side in [256.0, 128, 64] {
      let scale = side / 872
      let ours = try #require(try image.resizedInMemory(scale: scale, verticalScale: scale))
      #expect(try ours.writePixels() == image.resizedByLibvips(scale: scale).writePixels())
    }
  }

  @Test("only 8-bit images held in memory take the in-memory path")
  func otherImagesGoThroughLibvips() throws {
    let path = Fixtures.photo("chelsea.png")
    // A lazy image (decoded on demand) and a 16-bit one: the same as vips_resize exactly.
    let lazy = try VipsImage(file: path)
    #expect(try lazy.resizedInMemory(scale: 0.3, verticalScale: 0.3) == nil)
    #expect(
      try lazy.resized(scale: 0.3).writePixels() == lazy.resizedByLibvips(scale: 0.3).writePixels()
    )
    let wide = try VipsImage(file: path).cast(to: .ushort).materialized()
    #expect(try wide.resizedInMemory(scale: 0.3, verticalScale: 0.3) == nil)
    let ours = try wide.resized(scale: 0.3)
    #expect(ours.format == .ushort)
    #expect(try ours.meanAbsoluteDifference(to: wide.resizedByLibvips(scale: 0.3)) == 0)
    // Enlarging goes through libvips too.
    let memory = try VipsImage(file: path).materialized()
    #expect(try memory.resizedInMemory(scale: 1.5, verticalScale: 1.5) == nil)
    #expect(try memory.resizedInMemory(scale: 0.3, verticalScale: 0.3) != nil)
    let larger = try memory.resized(scale: 1.5)
    #expect((larger.width, larger.height) == (677, 450))
  }

  @Test("the attention centre is vips_smartcrop's", arguments: Fixture.photos)
  func attentionIsLibvips(_ fixture: Fixture) throws {
    let image = try Self.decoded(fixture)
    let side = min(image.width, image.height)
    let windows = [
      (side, side), (image.width, max(1, image.height / 2)),
      (max(1, image.width / 3), image.height),
    ]
    for (width, height) in windows {
      let ours = try image.attentionCentre(width: width, height: height)
      let theirs = try image.attentionCentreByLibvips(width: width, height: height)
      #expect(ours == theirs, "\(fixture): window \(width)x\(height)")
    }
  }

  @Test func attentionRejectsAWindowLargerThanTheImage() throws {
    let image = try VipsImage(file: Fixtures.photo("chelsea.png")).materialized()
    #expect(throws: VipsError.self) { try image.attentionCentre(width: 452, height: 10) }
  }
}

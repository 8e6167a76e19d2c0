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
  func sameAsLibvips(_ fixture: Fixture) async throws {
    try await ComputeExecutor.run {
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
  }

  /// Both in-memory paths: 8-bit, and premultiplied in float for an image with alpha
  /// (a photo without one gets its green band as a varying alpha).
  @Test(
    "a window of the resize is the resize cropped, byte for byte",
    arguments: Fixture.photos, [false, true])
  func windowIsTheCrop(_ fixture: Fixture, premultiplied: Bool) async throws {
    try await ComputeExecutor.run {
      var image = try Self.decoded(fixture)
      if premultiplied, !image.hasAlpha {
        image = try image.joiningBands(image.extractingBands(1)).materialized()
      }
      let resize = { (h: Double, v: Double, window: PixelRect?) throws -> VipsImage? in
        switch (premultiplied, window) {
        case (false, nil): try image.resizedInMemory(scale: h, verticalScale: v)
        case (false, let window?):
          try image.resizedInMemory(scale: h, verticalScale: v, cropping: window)
        case (true, nil): try image.resizedPremultipliedInMemory(scale: h, verticalScale: v)
        case (true, let window?):
          try image.resizedPremultipliedInMemory(scale: h, verticalScale: v, cropping: window)
        }
      }
      // The largest and smallest of the family's, and ones that keep or squeeze an axis.
      let scales = Self.scales(image).enumerated().filter { [0, 2, 5, 6, 7].contains($0.offset) }
      for (h, v) in scales.map(\.element) {
        let whole = try #require(try resize(h, v, nil))
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
          let part = try resize(h, v, window)
          #expect(part != nil, "\(label): the in-memory path declined")
          guard let part else { continue }
          let cropped = try whole.cropped(
            left: window.x, top: window.y, width: window.width, height: window.height)
          #expect((part.width, part.height) == (window.width, window.height), "\(label)")
          #expect(try part.writePixels() == cropped.writePixels(), "\(label)")
        }
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
    // The premultiplied path (with alpha) checks its window the same way.
    let alpha = try image.joiningBands(image.extractingBands(1)).materialized()
    #expect(throws: VipsError.self) {
      try alpha.resizedPremultiplied(
        scale: 0.5, cropping: PixelRect(x: 100, y: 0, width: 127, height: 150))
    }
    let alphaEdge = try alpha.resizedPremultiplied(
      scale: 0.5, cropping: PixelRect(x: 100, y: 0, width: 126, height: 150))
    #expect((alphaEdge.width, alphaEdge.height, alphaEdge.bands) == (126, 150, 4))
    // An empty window, and scales that are not positive, are errors too.
    #expect(throws: VipsError.self) {
      try alpha.resizedPremultiplied(
        scale: 0.5, cropping: PixelRect(x: 0, y: 0, width: 0, height: 0))
    }
    for scale in [0, -1, Double.nan] {
      #expect(throws: VipsError.self) { try alpha.resizedPremultiplied(scale: scale) }
    }
    // Without alpha there is nothing to premultiply: a plain resize, no band taken as alpha.
    #expect(
      try image.resizedPremultiplied(scale: 0.5).writePixels()
        == image.resized(scale: 0.5).writePixels())
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
  func premultipliedSameAsLibvips(_ fixture: Fixture) async throws {
    try await ComputeExecutor.run {
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
    // In memory, both shrinking and enlarging (EnlargeTests) take the in-memory path.
    let memory = try VipsImage(file: path).materialized()
    #expect(try memory.resizedInMemory(scale: 1.5, verticalScale: 1.5) != nil)
    #expect(try memory.resizedInMemory(scale: 0.3, verticalScale: 0.3) != nil)
    let larger = try memory.resized(scale: 1.5)
    #expect((larger.width, larger.height) == (677, 450))
    #expect(try larger.writePixels() == memory.resizedByLibvips(scale: 1.5).writePixels())
  }

  /// Windows over the whole range: every combination of 1 pixel, a third, two thirds
  /// and the whole of each side, and the windows `fill(crop: attention)` asks for (the
  /// largest of a format's shape: square, 4:3, 3:4).
  static func attentionWindows(_ image: VipsImage) -> [(Int, Int)] {
    let sides = { (length: Int) in [1, max(1, length / 3), max(1, 2 * length / 3), length] }
    var windows = sides(image.width).flatMap { w in sides(image.height).map { (w, $0) } }
    for (across, down) in [(1.0, 1.0), (4.0, 3.0), (3.0, 4.0)] {
      let aspect = across / down
      windows.append(
        (
          max(1, min(image.width, Int((Double(image.height) * aspect).rounded()))),
          max(1, min(image.height, Int((Double(image.width) / aspect).rounded())))
        ))
    }
    return windows
  }

  /// The shim's C loops, not the libvips graph, answered, and with vips_smartcrop's
  /// centre, for every window.
  static func expectAttentionIsLibvips(_ image: VipsImage, _ label: String) throws {
    for (width, height) in attentionWindows(image) {
      let inC = try image.attentionCentreInC(width: width, height: height)
      #expect(inC != nil, "\(label): the C loops declined")
      let ours = try image.attentionCentre(width: width, height: height)
      let theirs = try image.attentionCentreByLibvips(width: width, height: height)
      #expect(ours == theirs, "\(label): window \(width)x\(height)")
    }
  }

  @Test("the attention centre is vips_smartcrop's", arguments: Fixture.photos)
  func attentionIsLibvips(_ fixture: Fixture) async throws {
    try await ComputeExecutor.run {
      try Self.expectAttentionIsLibvips(Self.decoded(fixture), "\(fixture)")
    }
  }

  /// Grey (one band: B_W), grey with alpha, and colour with alpha, both an alpha that
  /// varies and one that hides half the photo (premultiplied, the hidden half scores 0).
  @Test(
    "the attention centre is vips_smartcrop's for grey and alpha images",
    arguments: [
      "chelsea.png", "rocket.jpg", "coffee.png", "chelsea-roundmask-alpha.png",
      "chelsea-grey-alpha.png",
    ])
  func attentionIsLibvipsForGreyAndAlpha(_ name: String) async throws {
    try await ComputeExecutor.run {
      let image = try VipsImage(file: Fixtures.path(name)).toSRGB().materialized()
      let colour = image.hasAlpha ? try image.extractingBands(0, count: 3) : image
      let grey = try colour.toGreyscale().materialized()
      #expect(grey.bands == 1 && grey.interpretation == .bw)
      let halfHidden = try VipsImage(
        pixels: (0..<(image.width * image.height)).map {
          $0 % image.width < image.width / 2 ? 0 : 255
        },
        width: image.width, height: image.height, bands: 1)
      let variants = [
        ("grey", grey),
        ("grey + alpha", try grey.joiningBands(halfHidden).materialized()),
        ("alpha: its green", try colour.joiningBands(colour.extractingBands(1)).materialized()),
        ("alpha: right half", try colour.joiningBands(halfHidden).materialized()),
      ]
      for (label, variant) in variants {
        try Self.expectAttentionIsLibvips(variant, "\(name), \(label)")
      }
    }
  }

  /// Flat colour: every score is equal, and libvips's vips_max keeps the first maximum in
  /// raster order: the centre is the top left corner, for every size and window.
  @Test func attentionOfAFlatImageIsTheFirstPixel() throws {
    for (width, height) in [(1, 1), (10, 7), (32, 32), (300, 200), (33, 700)] {
      for colour in [[0, 0, 0], [224, 172, 145], [255, 0, 0]] as [[UInt8]] {
        let flat = try VipsImage(
          pixels: Array([[UInt8]](repeating: colour, count: width * height).joined()),
          width: width, height: height, bands: 3)
        try Self.expectAttentionIsLibvips(flat, "flat \(colour) \(width)x\(height)")
        #expect(try flat.attentionCentre(width: width, height: height) == (0, 0))
      }
    }
  }

  /// What the C loops are not written for goes to the libvips graph: a 16-bit image.
  @Test func attentionOfA16BitImageTakesTheLibvipsGraph() throws {
    let image = try VipsImage(file: Fixtures.path("astronaut-16bit.png"))
    #expect(image.format == .ushort)
    #expect(try image.attentionCentreInC(width: 100, height: 100) == nil)
    let ours = try image.attentionCentre(width: 100, height: 100)
    #expect(ours == (try image.attentionCentreByLibvips(width: 100, height: 100)))
  }

  /// vips_smartcrop's miniature of an image with alpha: vips_resize of
  /// vips_premultiply's floats, which the shim's float resize gives sample for sample,
  /// but (as the 8-bit path, see `expectNearlyEqual`) in one row where libvips's
  /// sampling position lands a phase away: on owl, owl-exif3 and rocket, row 13.
  @Test("the premultiplied float miniature is vips_resize's", arguments: Fixture.photos)
  func premultipliedFloatMiniatureIsLibvips(_ fixture: Fixture) async throws {
    try await ComputeExecutor.run {
      var image = try Self.decoded(fixture)
      if !image.hasAlpha {
        image = try image.joiningBands(image.extractingBands(1)).materialized()
      }
      let (h, v) = (32 / Double(image.width), 32 / Double(image.height))
      guard h <= 1, v <= 1 else { return }  // enlarged: vips_resize makes it
      let ours = try #require(
        try image.resizedPremultipliedFloatInMemory(scale: h, verticalScale: v))
      let theirs = try image.premultiplied().resizedByLibvips(scale: h, verticalScale: v)
      #expect(ours.format == .float && theirs.format == .float)
      #expect((ours.width, ours.height, ours.bands) == (theirs.width, theirs.height, theirs.bands))
      let (a, b) = (try ours.writePixels(), try theirs.writePixels())
      #expect(a.count == b.count)
      let rowBytes = ours.width * ours.bands * 4
      let differingRows = (0..<ours.height).filter { row in
        a[(row * rowBytes)..<((row + 1) * rowBytes)] != b[(row * rowBytes)..<((row + 1) * rowBytes)]
      }
      #expect(differingRows.count <= 1, "\(fixture): rows \(differingRows) differ")
    }
  }

  @Test func attentionRejectsAWindowLargerThanTheImage() throws {
    let image = try VipsImage(file: Fixtures.photo("chelsea.png")).materialized()
    #expect(throws: VipsError.self) { try image.attentionCentre(width: 452, height: 10) }
  }
}

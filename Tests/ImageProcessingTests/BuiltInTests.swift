import Foundation
import ImageTables
import Testing
import Vips

@testable import ImageProcessing

@Suite("Built-in processors")
struct BuiltInTests {
  static let photos = ["astronaut.png", "chelsea.png", "coffee.png", "hubble.jpg", "rocket.jpg"]

  private func source(_ name: String, covering width: Int, _ height: Int) throws -> VipsImage {
    try SourceDecoder.decode(
      file: Photos.bundled(name), covering: [.init(width: width, height: height)])
  }

  /// Coverage of a disc of radius r centred at (cx, cy) over pixel (x, y), as 0...255.
  private func discCoverage(_ x: Int, _ y: Int, cx: Double, cy: Double, r: Double) -> Double {
    let dx: Double = Double(x) + 0.5 - cx
    let dy: Double = Double(y) + 0.5 - cy
    let distance = (dx * dx + dy * dy).squareRoot()
    return min(1, max(0, r + 0.5 - distance)) * 255
  }

  @Test(arguments: photos)
  func fillIsExactlyTheTargetSize(_ name: String) throws {
    for (width, height) in [(64, 64), (100, 30), (30, 100), (1, 1)] {
      let image = try run("fill", on: Photos.bundled(name), context(width, height))
      #expect((image.width, image.height) == (width, height), "\(name) \(width)x\(height)")
    }
    let small = try VipsImage(
      pixels: [UInt8](repeating: 90, count: 10 * 10 * 3), width: 10, height: 10, bands: 3)
    let enlarged = try registry.pipeline("fill").process(small, context: context(40, 20))
    #expect((enlarged.width, enlarged.height) == (40, 20))
  }

  /// Against libvips directly, by another route: resize to cover, then cut the middle.
  @Test(arguments: photos)
  func fillMatchesResizeThenCentreCrop(_ name: String) throws {
    let decoded = try source(name, covering: 80, 48)
    let filled = try registry.pipeline("fill").process(decoded, context: context(80, 48))
    let scale = max(80 / Double(decoded.width), 48 / Double(decoded.height))
    let resized = try decoded.resized(scale: scale)
    let reference = try resized.cropped(
      left: (resized.width - 80) / 2, top: (resized.height - 48) / 2, width: 80, height: 48)
    let difference = try filled.meanAbsoluteDifference(to: reference)
    #expect(difference < 2, "\(name): mean absolute difference \(difference)")
  }

  /// fill(crop: attention) is thumbnail's resample cropped around the attention centre
  /// (found once on the decode, at the window's shape), clamped inside: byte for byte.
  @Test(arguments: photos)
  func attentionCropIsCentredOnTheAttentionPoint(_ name: String) throws {
    for (width, height) in [(64, 64), (100, 30), (30, 100)] {
      let label = "\(name) \(width)x\(height)"
      let decoded = try source(name, covering: width, height)
      let filled = try registry.pipeline("fill(crop: attention)").process(
        decoded, context: context(width, height))
      let sizes = ThumbnailGeometry(
        width: decoded.width, height: decoded.height, box: (width, height), covers: true)
      let resized = try sizes.resample(decoded, geometry: SourceGeometry(of: decoded))
      let aspect = Double(width) / Double(height)
      let window = (
        width: min(decoded.width, Int((Double(decoded.height) * aspect).rounded())),
        height: min(decoded.height, Int((Double(decoded.width) / aspect).rounded()))
      )
      let point = try decoded.attentionCentre(width: window.width, height: window.height)
      let centre = (
        x: Double(point.x) / Double(decoded.width) * Double(resized.width),
        y: Double(point.y) / Double(decoded.height) * Double(resized.height)
      )
      func clamped(_ value: Int, _ limit: Int) -> Int { min(max(0, value), limit) }
      let left = clamped(Int((centre.x - Double(width) / 2).rounded(.down)), resized.width - width)
      let top = clamped(
        Int((centre.y - Double(height) / 2).rounded(.down)), resized.height - height)
      let reference = try resized.cropped(left: left, top: top, width: width, height: height)
      #expect(
        try filled.writePixels() == reference.writePixels(),
        "\(label): not the crop at (\(left), \(top))")
    }
  }

  @Test func attentionKeepsTheAstronautsFaceInFrame() throws {
    // A 128x64 band of the 512x512 portrait at quarter size: the face (eyes near row 25,
    // mouth near row 37) must be inside; the centre band (rows 32-96) cuts the eyes off.
    // (On a 4:1 band libvips's attention measure prefers the orange suit below the face:
    // `vips smartcrop astronaut.png out.png 512 128` does the same.)
    let decoded = try source("astronaut.png", covering: 128, 64)
    let attention = try registry.pipeline("fill(crop: attention)").process(
      decoded, context: context(128, 64))
    let full = try decoded.resized(scale: 128 / Double(decoded.width))
    func bestTop(_ image: VipsImage) throws -> Int {
      try (0...(full.height - 64)).min { a, b in
        try full.cropped(left: 0, top: a, width: 128, height: 64).meanAbsoluteDifference(to: image)
          < full.cropped(left: 0, top: b, width: 128, height: 64).meanAbsoluteDifference(to: image)
      }!
    }
    let top = try bestTop(attention)
    #expect(top <= 20 && top + 64 >= 42, "the attention crop starts at row \(top)")
    let centre = try registry.pipeline("fill(crop: centre)").process(
      decoded, context: context(128, 64))
    #expect(try bestTop(centre) == 32)
  }

  @Test func fitKeepsTheAspectRatioAndNeverCrops() throws {
    let rocket = try run("fit", on: Photos.bundled("rocket.jpg"), context(100, 100))  // 640x427
    #expect((rocket.width, rocket.height) == (100, 67))
    let tall = try run("fit", on: Photos.bundled("rocket.jpg"), context(300, 50))
    #expect((tall.width, tall.height) == (75, 50))
    let small = try VipsImage(
      pixels: [UInt8](repeating: 9, count: 20 * 10 * 3), width: 20, height: 10, bands: 3)
    let kept = try registry.pipeline("fit").process(small, context: context(100, 100))
    #expect((kept.width, kept.height) == (20, 10))
    let enlarged = try registry.pipeline("fit(enlarge: true)").process(
      small, context: context(100, 100))
    #expect((enlarged.width, enlarged.height) == (100, 50))
  }

  /// Against libvips directly: one resize by the scale that fits.
  @Test(arguments: photos)
  func fitMatchesOneResize(_ name: String) throws {
    let decoded = try source(name, covering: 70, 50)
    let fitted = try registry.pipeline("fit").process(decoded, context: context(70, 50))
    let scale = min(70 / Double(decoded.width), 50 / Double(decoded.height))
    let reference = try decoded.resized(scale: scale)
    #expect((fitted.width, fitted.height) == (reference.width, reference.height))
    let difference = try fitted.meanAbsoluteDifference(to: reference)
    #expect(difference < 2, "\(name): mean absolute difference \(difference)")
  }

  @Test func cropTakesPixelsOrFractions() throws {
    let photo = try VipsImage(file: Photos.bundled("coffee.png"))  // 600x400
    let pixels = try registry.pipeline("crop(x: 100, y: 50, width: 200, height: 120)")
      .process(photo, context: context(10, 10))
    #expect(
      try pixels.writePixels()
        == photo.cropped(left: 100, top: 50, width: 200, height: 120).writePixels())
    let fractions = try registry.pipeline(
      "crop(x: 0.5, y: 0.25, width: 0.5, height: 0.5, unit: fraction)"
    )
    .process(photo, context: context(10, 10))
    #expect(
      try fractions.writePixels()
        == photo.cropped(left: 300, top: 100, width: 300, height: 200).writePixels())
  }

  @Test func circleAlphaIsTheAntialiasedDisc() throws {
    let filled = try run("fill", on: Photos.bundled("chelsea.png"), context(48, 48))
    let round = try registry.pipeline("circle").process(filled, context: context(48, 48))
    #expect(round.bands == 4)
    let alpha = try round.extractingBands(3).writePixels()
    var worst = 0.0
    for y in 0..<48 {
      for x in 0..<48 {
        worst = max(
          worst, abs(Double(alpha[y * 48 + x]) - discCoverage(x, y, cx: 24, cy: 24, r: 24)))
      }
    }
    #expect(worst <= 1, "alpha off by \(worst)")
    #expect(try round.extractingBands(0, count: 3).writePixels() == filled.toSRGB().writePixels())
  }

  @Test func circleCornersAreTransparentOrBackground() throws {
    let round = try run("fill | circle", on: Photos.bundled("rocket.jpg"), context(32, 32))
    let clear = try Rasterizer.prepare(
      round, style: .bgra32, background: RGBA(0, 0, 255), slotWidth: 32, slotHeight: 32
    ).bytes()
    #expect(Array(clear.bytes[0..<4]) == [0, 0, 0, 0])
    let opaque = try Rasterizer.prepare(
      round, style: .bgr32, background: RGBA(0, 0, 255), slotWidth: 32, slotHeight: 32
    ).bytes()
    #expect(Array(opaque.bytes[0..<4]) == [255, 0, 0, 255])  // B, G, R, X: blue
    let lastRow = 31 * opaque.bytesPerRow + 31 * 4
    #expect(Array(opaque.bytes[lastRow..<lastRow + 4]) == [255, 0, 0, 255])
  }

  @Test func roundedCornersUsePoints() throws {
    let filled = try run("fill", on: Photos.bundled("coffee.png"), context(30, 20, scale: 2))
    let rounded = try registry.pipeline("roundedCorners(radius: 5)").process(
      filled, context: context(30, 20, scale: 2))
    // Radius 5 points at 2x: 10 pixels. Each corner is a quarter disc of radius 10.
    for (x, y, cx, cy) in [
      (0, 0, 10.0, 10.0), (3, 2, 10.0, 10.0), (59, 39, 50.0, 30.0), (56, 37, 50.0, 30.0),
    ] {
      let expected = discCoverage(x, y, cx: cx, cy: cy, r: 10)
      #expect(abs(try rounded.pixel(x: x, y: y)[3] - expected) <= 1, "(\(x), \(y))")
    }
    #expect(try rounded.pixel(x: 10, y: 0)[3] == 255)
    #expect(try rounded.pixel(x: 30, y: 20)[3] == 255)
  }

  @Test func borderPaintsInsideTheEdgeInPoints() throws {
    let filled = try run("fill", on: Photos.bundled("hubble.jpg"), context(20, 16, scale: 2))
    let framed = try registry.pipeline("border(width: 1, color: #ff0000)").process(
      filled, context: context(20, 16, scale: 2))
    let plain = try filled.toSRGB()
    for (x, y) in [(0, 0), (1, 10), (39, 31), (20, 30)] {
      #expect(try framed.pixel(x: x, y: y) == [255, 0, 0], "(\(x), \(y))")
    }
    for (x, y) in [(2, 2), (20, 16), (37, 29)] {
      #expect(try framed.pixel(x: x, y: y) == plain.pixel(x: x, y: y), "(\(x), \(y))")
    }
  }

  @Test func borderFollowsTheCircle() throws {
    let ringed = try run(
      "fill | circle | border(width: 2, color: #00ff00)", on: Photos.bundled("chelsea.png"),
      context(40, 40))
    // One pixel in from the circle's anti-aliased edge, the ring is solid.
    #expect(try ringed.pixel(x: 20, y: 1) == [0, 255, 0, 255])  // top of the circle
    #expect(try ringed.pixel(x: 1, y: 20) == [0, 255, 0, 255])  // left of the circle
    #expect(try ringed.pixel(x: 20, y: 4)[1] < 250)  // inside the ring, the photo
    #expect(try ringed.pixel(x: 0, y: 0)[3] == 0)  // the corner stays transparent
    let plain = try run("fill | circle", on: Photos.bundled("chelsea.png"), context(40, 40))
    #expect(try ringed.pixel(x: 20, y: 20) == plain.pixel(x: 20, y: 20))
  }

  @Test func grayscaleMatchesLibvips() throws {
    let filled = try run("fill", on: Photos.bundled("coffee.png"), context(50, 50))
    let grey = try registry.pipeline("grayscale").process(filled, context: context(50, 50))
    #expect(grey.bands == 1)
    #expect(try grey.maximumDifference(to: filled.toGreyscale()) <= 1)
  }

  @Test func blurAndSharpenMatchLibvips() throws {
    let filled = try run("fill", on: Photos.bundled("rocket.jpg"), context(60, 40))
    let blurred = try registry.pipeline("blur(sigma: 1.5)").process(
      filled, context: context(60, 40, scale: 1))
    #expect(
      try blurred.maximumDifference(to: filled.toSRGB().blurred(sigma: 1.5).castToUInt8()) <= 1)
    #expect(try blurred.meanAbsoluteDifference(to: filled.toSRGB()) > 1)  // it did blur
    let sharp = try registry.pipeline("sharpen(sigma: 1)").process(filled, context: context(60, 40))
    #expect(try sharp.maximumDifference(to: filled.toSRGB().sharpened(sigma: 1).castToUInt8()) <= 1)
  }

  @Test func blurDoesNotBleedTransparency() throws {
    // Opaque red next to fully transparent pixels whose colour is green.
    var pixels: [UInt8] = []
    for _ in 0..<16 { for x in 0..<16 { pixels += x < 8 ? [255, 0, 0, 255] : [0, 255, 0, 0] } }
    let image = try VipsImage(pixels: pixels, width: 16, height: 16, bands: 4)
    let blurred = try registry.pipeline("blur(sigma: 2)").process(image, context: context(16, 16))
    let edge = try blurred.pixel(x: 7, y: 8)
    #expect(edge[1] <= 1 && edge[0] >= 250, "no green came in: \(edge)")
    #expect(edge[3] < 255)
  }

  /// A real photo with real transparency (the cat cut round), flattened onto teal:
  /// every pixel is colour x alpha + teal x (1 - alpha), within one level.
  @Test func flattenOnARealPhoto() throws {
    let cat = try VipsImage.thumbnail(file: Photos.bundled("chelsea.png"), width: 90, height: 60)
    let round = try cat.masked(
      by: VipsImage.roundedRectangleMask(width: 90, height: 60, radius: 30))
    let flat = try registry.pipeline("flatten(color: #008080)").process(
      round, context: context(90, 60))
    let source = try round.writePixels()
    let result = try flat.writePixels()
    let teal: [Double] = [0, 128, 128]
    var worst = 0.0
    for pixel in 0..<(90 * 60) {
      let alpha = Double(source[pixel * 4 + 3]) / 255
      for channel in 0..<3 {
        let colour = Double(source[pixel * 4 + channel])
        let wanted = colour * alpha + teal[channel] * (1 - alpha)
        worst = max(worst, abs(Double(result[pixel * 3 + channel]) - wanted))
      }
    }
    #expect(worst <= 1, "worst difference \(worst)")
    #expect(result[0] == 0 && result[1] == 128 && result[2] == 128)  // a corner is all teal
  }

  @Test func flattenBlendsOntoTheColour() throws {
    let image = try VipsImage(
      pixels: [200, 100, 50, 128, 10, 20, 30, 0], width: 2, height: 1, bands: 4)
    let flat = try registry.pipeline("flatten(color: #000080)").process(
      image, context: context(2, 1))
    #expect(flat.bands == 3)
    let blended = try flat.pixel(x: 0, y: 0)
    let alpha = 128.0 / 255
    let expected: [Double] = [200 * alpha, 100 * alpha, 50 * alpha + 128 * (1 - alpha)]
    for index in 0..<3 {
      let difference: Double = abs(blended[index] - expected[index])
      #expect(difference <= 1)
    }
    #expect(try flat.pixel(x: 1, y: 0) == [0, 0, 128])
  }
}

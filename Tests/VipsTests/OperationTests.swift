import Foundation
import TestFixtures
import Testing

@testable import Vips

@Suite("Operations")
struct OperationTests {
  /// A 4x2 sRGB image with known pixels: red, green, blue, white / black, grey, yellow, cyan.
  static func swatch() throws -> VipsImage {
    try VipsImage(
      pixels: [
        255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255,
        0, 0, 0, 128, 128, 128, 255, 255, 0, 0, 255, 255,
      ], width: 4, height: 2, bands: 3)
  }

  @Test func pixelsRoundTrip() throws {
    let image = try Self.swatch()
    #expect(image.interpretation == .srgb && image.format == .uchar)
    #expect(try image.pixel(x: 1, y: 1) == [128, 128, 128])
    #expect(try image.writePixels().count == 24)
  }

  @Test func writePixelsWithStrideLeavesPaddingAlone() throws {
    let image = try Self.swatch()
    var buffer = [UInt8](repeating: 0xAB, count: 64 * 2)
    try buffer.withUnsafeMutableBytes { try image.writePixels(into: $0, bytesPerRow: 64) }
    #expect(Array(buffer[0..<12]) == [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255])
    #expect(buffer[12..<64].allSatisfy { $0 == 0xAB })
    #expect(Array(buffer[64..<76]) == [0, 0, 0, 128, 128, 128, 255, 255, 0, 0, 255, 255])
    var small = [UInt8](repeating: 0, count: 20)
    #expect(throws: VipsError.self) {
      try small.withUnsafeMutableBytes { try image.writePixels(into: $0, bytesPerRow: 12) }
    }
  }

  @Test func cropTakesTheRectangle() throws {
    let crop = try Self.swatch().cropped(left: 2, top: 1, width: 2, height: 1)
    #expect(try crop.writePixels() == [255, 255, 0, 0, 255, 255])
    #expect(throws: VipsError.self) {
      try Self.swatch().cropped(left: 3, top: 0, width: 2, height: 1)
    }
  }

  @Test func resizeScales() throws {
    let photo = try VipsImage(file: Fixtures.photo("rocket.jpg"))  // 640x427
    let half = try photo.resized(scale: 0.5)
    #expect((half.width, half.height) == (320, 214))
    let stretched = try photo.resized(scale: 0.25, verticalScale: 0.5)
    #expect((stretched.width, stretched.height) == (160, 214))
    // A flat image stays flat through the Lanczos kernel.
    let flat = try VipsImage(
      pixels: [UInt8](repeating: 77, count: 64 * 64 * 3), width: 64, height: 64, bands: 3)
    let small = try flat.resized(scale: 0.3)
    #expect(try small.average() == 77)
  }

  @Test func smartCropKeepsTheSize() throws {
    let photo = try VipsImage(file: Fixtures.photo("astronaut.png"))
    let crop = try photo.smartCropped(width: 200, height: 100, interesting: .attention)
    #expect((crop.width, crop.height) == (200, 100))
  }

  @Test func rotateAndAutorotate() throws {
    let turned = try Self.swatch().rotated(quarterTurns: 1)
    #expect((turned.width, turned.height) == (2, 4))
    // Clockwise: the bottom-left pixel (black) comes to the top-left.
    #expect(try turned.pixel(x: 0, y: 0) == [0, 0, 0])
    let tagged = try Self.swatch().rotated(quarterTurns: 3).settingOrientation(6)
    #expect(try tagged.autorotated().writePixels() == Self.swatch().writePixels())
  }

  @Test func flattenBlendsOntoTheBackground() throws {
    let halfRed = try VipsImage(pixels: [255, 0, 0, 128], width: 1, height: 1, bands: 4)
    let flat = try halfRed.flattened(background: [0, 0, 255])
    #expect(flat.bands == 3)
    let pixel = try flat.pixel(x: 0, y: 0)
    #expect(abs(pixel[0] - 128) <= 1 && pixel[1] == 0 && abs(pixel[2] - 127) <= 1)
  }

  @Test func premultiplyMultipliesByAlpha() throws {
    let image = try VipsImage(pixels: [200, 100, 50, 128], width: 1, height: 1, bands: 4)
    let pixel = try image.premultiplied().pixel(x: 0, y: 0)
    #expect(abs(pixel[0] - 200 * 128 / 255.0) < 0.01)
    #expect(abs(pixel[2] - 50 * 128 / 255.0) < 0.01)
    #expect(pixel[3] == 128)
  }

  @Test func blurSpreadsAnEdgeAndSharpenKeepsTheFormat() throws {
    var pixels = [UInt8](repeating: 0, count: 32 * 32)
    for y in 0..<32 { for x in 16..<32 { pixels[y * 32 + x] = 255 } }
    let edge = try VipsImage(pixels: pixels, width: 32, height: 32, bands: 1)
    let blurred = try edge.blurred(sigma: 2)
    let left = try blurred.pixel(x: 15, y: 16)[0]
    let right = try blurred.pixel(x: 16, y: 16)[0]
    #expect(left > 60 && left < 128 && right > 128 && right < 195)
    let sharp = try VipsImage(file: Fixtures.photo("coffee.png")).sharpened()
    #expect(sharp.format == .uchar && sharp.bands == 3 && sharp.width == 600)
  }

  @Test func discMaskIsRoundAndAntialiased() throws {
    let disc = try VipsImage.roundedRectangleMask(width: 64, height: 64, radius: 32)
    #expect(disc.bands == 1 && disc.format == .uchar)
    #expect(try disc.pixel(x: 0, y: 0)[0] == 0)
    #expect(try disc.pixel(x: 32, y: 32)[0] == 255)
    // Pixel (32, 0): centre 31.50 away, 0.496 inside: coverage 0.996, so 254.
    let top = try disc.pixel(x: 32, y: 0)[0]
    #expect(top == 254, "\(top)")
    // Pixel (5, 5): centre at distance 37.48 from (32, 32), 5.48 outside: empty.
    #expect(try disc.pixel(x: 5, y: 5)[0] == 0)
    // Pixel (10, 10): centre 30.41 from the middle, 1.59 inside: fully covered.
    #expect(try disc.pixel(x: 10, y: 10)[0] == 255)
    // Pixel (9, 9): centre 31.82 away, 0.18 inside: coverage 0.68, so 173.4.
    #expect(abs(try disc.pixel(x: 9, y: 9)[0] - 173.4) <= 1)
    // Area: about pi r^2 of 4096 pixels lit.
    let area = try disc.average() / 255 * 64 * 64
    #expect(abs(area - Double.pi * 32 * 32) < 3)
  }

  /// Every mask byte is the shape's coverage of the pixel, as specified: the signed
  /// distance `d` of the pixel's centre to the edge of the rectangle with corners of
  /// radius `r` (at most half the shorter side), coverage `clamp(0.5 - d, 0, 1)`, as
  /// 0...255 rounded to nearest.
  @Test(
    arguments: [(64, 64, 32.0), (60, 40, 35.0), (90, 60, 12.5), (7, 5, 2.0), (33, 17, 0.0)])
  func maskBytesAreTheCoverageOfTheShape(shape: (Int, Int, Double)) throws {
    let (width, height, radius) = shape
    let mask = try VipsImage.roundedRectangleMask(width: width, height: height, radius: radius)
    let bytes = try mask.writePixels()
    #expect(bytes.count == width * height)
    let r = min(radius, Double(width) / 2, Double(height) / 2)
    var differing = 0
    for y in 0..<height {
      for x in 0..<width {
        let qx = abs(Double(x) + 0.5 - Double(width) / 2) - (Double(width) / 2 - r)
        let qy = abs(Double(y) + 0.5 - Double(height) / 2) - (Double(height) / 2 - r)
        let outside = (max(qx, 0) * max(qx, 0) + max(qy, 0) * max(qy, 0)).squareRoot()
        let distance = outside + min(max(qx, qy), 0) - r
        let coverage = min(max(0.5 - distance, 0), 1)
        if bytes[y * width + x] != UInt8((coverage * 255).rounded()) { differing += 1 }
      }
    }
    #expect(differing == 0, "\(width)x\(height) radius \(radius): \(differing) pixels differ")
  }

  @Test func squareCornersMaskIsFull() throws {
    let mask = try VipsImage.roundedRectangleMask(width: 5, height: 3, radius: 0)
    #expect(try mask.writePixels() == [UInt8](repeating: 255, count: 15))
  }

  @Test func maskingSetsAlpha() throws {
    let photo = try VipsImage.thumbnail(
      file: Fixtures.photo("chelsea.png"), width: 64, height: 64, options: .init(crop: .centre))
    let disc = try VipsImage.roundedRectangleMask(width: 64, height: 64, radius: 32)
    let round = try photo.masked(by: disc)
    #expect(round.bands == 4)
    #expect(try round.pixel(x: 0, y: 0)[3] == 0)
    #expect(try round.pixel(x: 32, y: 32)[3] == 255)
    #expect(try round.extractingBands(0, count: 3).writePixels() == photo.writePixels())
  }

  @Test func borderPaintsTheEdgeOnly() throws {
    let grey = try VipsImage(
      pixels: [UInt8](repeating: 100, count: 10 * 8 * 3), width: 10, height: 8, bands: 3)
    let framed = try grey.bordered(width: 2, color: [255, 0, 0])
    #expect(try framed.pixel(x: 0, y: 0) == [255, 0, 0])
    #expect(try framed.pixel(x: 1, y: 4) == [255, 0, 0])
    #expect(try framed.pixel(x: 9, y: 7) == [255, 0, 0])
    #expect(try framed.pixel(x: 2, y: 2) == [100, 100, 100])
    #expect(try framed.pixel(x: 7, y: 5) == [100, 100, 100])
  }

  @Test func textRendersInk() throws {
    let text = try VipsImage.text("3 of 12", font: "sans 20")
    #expect(text.bands == 1 && text.width > 20 && text.height > 5)
    #expect(try text.maximum() == 255)
    #expect(try text.average() < 200)  // ink on empty ground, not a filled box
  }

  @Test func gridJoinsInRows() throws {
    let red = try VipsImage(pixels: [255, 0, 0], width: 1, height: 1, bands: 3).embedded(
      x: 0, y: 0, width: 2, height: 2, background: [255, 0, 0])
    let blue = try VipsImage(pixels: [0, 0, 255], width: 1, height: 1, bands: 3).embedded(
      x: 0, y: 0, width: 2, height: 2, background: [0, 0, 255])
    let grid = try VipsImage.grid([red, blue, blue], across: 2, spacing: 1, background: [9])
    #expect((grid.width, grid.height) == (5, 5))
    #expect(try grid.pixel(x: 0, y: 0) == [255, 0, 0])
    #expect(try grid.pixel(x: 3, y: 0) == [0, 0, 255])
    #expect(try grid.pixel(x: 0, y: 3) == [0, 0, 255])
    #expect(try grid.pixel(x: 2, y: 0) == [9, 9, 9])
  }

  @Test func overlayBlendsByAlpha() throws {
    let white = try VipsImage(
      pixels: [UInt8](repeating: 255, count: 4 * 4 * 3), width: 4, height: 4, bands: 3)
    let dot = try VipsImage(pixels: [0, 0, 0, 255], width: 1, height: 1, bands: 4)
    let drawn = try white.overlaid(with: dot, x: 2, y: 1)
    #expect(try drawn.pixel(x: 2, y: 1) == [0, 0, 0, 255])
    #expect(try drawn.pixel(x: 0, y: 0) == [255, 255, 255, 255])
  }

  @Test(arguments: EncodedFormat.allCases)
  func encodesAndDecodesBack(_ format: EncodedFormat) throws {
    let photo = try VipsImage.thumbnail(file: Fixtures.photo("coffee.png"), width: 120)
    let bytes: [UInt8] =
      switch format {
      case .png: try photo.pngData()
      case .jpeg: try photo.jpegData(quality: 90)
      case .webp: try photo.webpData(quality: 90)
      }
    let header = try ImageHeader(bytes: bytes)
    #expect(
      header.loader == ["png": "pngload", "jpeg": "jpegload", "webp": "webpload"][format.rawValue])
    let decoded = try VipsImage(bytes: bytes)
    #expect((decoded.width, decoded.height) == (120, 80))
    let difference = try decoded.meanAbsoluteDifference(to: photo)
    // PNG is lossless; JPEG and WebP at quality 90 measured 3.3 and 3.7 levels here.
    #expect(difference < (format == .png ? 0.001 : 5), "mean absolute difference \(difference)")
    let folder = try Fixtures.temporaryFolder()
    let path = folder.appendingPathComponent("out.\(format == .jpeg ? "jpg" : format.rawValue)")
      .path
    try photo.write(to: path)
    #expect(try ImageHeader(file: path).width == 120)
  }

  @Test func unknownExtensionIsRefused() {
    #expect(throws: VipsError.self) { try Self.swatch().write(to: "/tmp/out.bmp") }
  }
}

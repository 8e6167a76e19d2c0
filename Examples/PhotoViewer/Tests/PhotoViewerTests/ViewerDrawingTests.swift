import CGtk
import ImageTables
import PhotoModels
import Testing

@testable import PhotoViewer

/// The page as Cairo draws it, checked against an independent scale of the entry: a
/// bilinear resample with the pixel-centre convention, computed here in doubles.
@MainActor
@Suite struct ViewerDrawingTests {
  /// A 16 by 12 `bgr32` entry whose channels vary in both directions, steeply enough
  /// for a misplaced sample to show.
  let photo = bitmap(width: 16, height: 12, style: .bgr32) { x, y in
    RGBA(UInt8((x * 37 + y * 11) % 256), UInt8((x * 5 + y * 29) % 256), UInt8((x * y * 7) % 256))
  }

  /// The page `width` by `height` drawn with `viewport` into an image surface; its
  /// pixels as (red, green, blue).
  func drawn(viewport: PhotoViewport, width: Int, height: Int) -> [[(Int, Int, Int)]] {
    let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height))!
    defer { cairo_surface_destroy(surface) }
    let cr = cairo_create(surface)!
    ViewerDrawing.drawPage(
      cr, photo: photo, viewport: viewport, width: width, height: height, pixelsPerPoint: 1)
    cairo_destroy(cr)
    cairo_surface_flush(surface)
    return (0..<height).map { y in
      (0..<width).map { x in
        let value = word(surface, x: x, y: y)
        return (Int(value >> 16 & 0xff), Int(value >> 8 & 0xff), Int(value & 0xff))
      }
    }
  }

  /// The entry scaled by `scale` with its corner at (`left`, `top`), at device pixel
  /// (x, y): bilinear between the four pixels around the sample point, nil where that
  /// point is outside the entry's pixel centres (Cairo blends its edges with nothing).
  func reference(x: Int, y: Int, left: Int, top: Int, scale: Double) -> (Double, Double, Double)? {
    let u = (Double(x - left) + 0.5) / scale - 0.5
    let v = (Double(y - top) + 0.5) / scale - 0.5
    guard u >= 0, v >= 0, u <= Double(photo.width - 1), v <= Double(photo.height - 1) else {
      return nil
    }
    let (x0, y0) = (Int(u), Int(v))
    let (x1, y1) = (min(x0 + 1, photo.width - 1), min(y0 + 1, photo.height - 1))
    let (fx, fy) = (u - Double(x0), v - Double(y0))
    func channel(_ pick: (RGBA) -> UInt8) -> Double {
      let top =
        Double(pick(photo.pixel(x: x0, y: y0))) * (1 - fx) + Double(pick(photo.pixel(x: x1, y: y0)))
        * fx
      let bottom =
        Double(pick(photo.pixel(x: x0, y: y1))) * (1 - fx) + Double(pick(photo.pixel(x: x1, y: y1)))
        * fx
      return top * (1 - fy) + bottom * fy
    }
    return (channel(\.red), channel(\.green), channel(\.blue))
  }

  /// Every pixel Cairo drew inside the entry's scaled extent matches the reference
  /// within 1 level: pixman's bilinear filter weighs with 7-bit fractions, and at these
  /// whole scales (2 and 4) the weights (k/4, k/8) are exact in 7 bits, so only the
  /// final rounding may differ. Outside the photo the page is black.
  func expectMatches(
    _ pixels: [[(Int, Int, Int)]], left: Int, top: Int, scale: Double, drawnWidth: Int,
    drawnHeight: Int
  ) {
    var compared = 0
    var worst = 0.0
    for (y, row) in pixels.enumerated() {
      for (x, pixel) in row.enumerated() {
        let inside =
          x >= left && x < left + drawnWidth && y >= top && y < top + drawnHeight
        if !inside {
          #expect(pixel == (0, 0, 0), "(\(x), \(y)) is off the photo and not black")
          continue
        }
        guard let want = reference(x: x, y: y, left: left, top: top, scale: scale) else {
          continue
        }
        compared += 1
        worst = max(
          worst, abs(Double(pixel.0) - want.0), abs(Double(pixel.1) - want.1),
          abs(Double(pixel.2) - want.2))
      }
    }
    #expect(compared > drawnWidth * drawnHeight / 2)
    #expect(worst <= 1, "the largest difference from the reference is \(worst)")
  }

  @Test func aPhotoIsFittedToThePageByCairo() {
    // 16 x 12 in 70 x 48: the height decides, scale 4, centred across (3 left over).
    let pixels = drawn(viewport: PhotoViewport(), width: 70, height: 48)
    expectMatches(pixels, left: 3, top: 0, scale: 4, drawnWidth: 64, drawnHeight: 48)
  }

  @Test func aZoomedPhotoIsTheEntryScaled() {
    var viewport = PhotoViewport()
    viewport.zoom(
      to: 2, photoWidth: 16, photoHeight: 12, width: 64, height: 40, pixelsPerPoint: 1)
    // 32 x 24, centred: (16, 8).
    let pixels = drawn(viewport: viewport, width: 64, height: 40)
    expectMatches(pixels, left: 16, top: 8, scale: 2, drawnWidth: 32, drawnHeight: 24)
  }

  @Test func oneToOneIsTheEntryItself() {
    var viewport = PhotoViewport()
    viewport.zoom(
      to: 1, photoWidth: 16, photoHeight: 12, width: 30, height: 20, pixelsPerPoint: 1)
    let pixels = drawn(viewport: viewport, width: 30, height: 20)
    for y in 0..<12 {
      for x in 0..<16 {
        let want = photo.pixel(x: x, y: y)
        #expect(pixels[y + 4][x + 7] == (Int(want.red), Int(want.green), Int(want.blue)))
      }
    }
  }
}

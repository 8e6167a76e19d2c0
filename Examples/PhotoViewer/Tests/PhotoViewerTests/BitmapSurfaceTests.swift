import CGtk
import ImageTables
import Testing

@testable import PhotoViewer

/// A `width` by `height` bitmap of `style` whose pixel (x, y) is `colour(x, y)`.
func bitmap(
  width: Int, height: Int, style: PixelStyle, colour: (Int, Int) -> RGBA
) -> Bitmap {
  Bitmap(width: width, height: height, style: style) { canvas in
    for y in 0..<height {
      for x in 0..<width { canvas.set(x: x, y: y, colour(x, y)) }
    }
  }
}

/// The 32-bit word Cairo holds for pixel (x, y) of an ARGB32 or RGB24 surface.
func word(_ surface: OpaquePointer, x: Int, y: Int) -> UInt32 {
  let stride = Int(cairo_image_surface_get_stride(surface))
  let data = UnsafeRawPointer(cairo_image_surface_get_data(surface)!)
  return data.load(fromByteOffset: y * stride + x * 4, as: UInt32.self)
}

@MainActor
@Suite struct BitmapSurfaceTests {
  @Test func bgra32IsCairoARGB32OverTheSameBytes() throws {
    let image = bitmap(width: 3, height: 2, style: .bgra32) { x, y in
      RGBA(UInt8(10 * x), UInt8(100 + y), 200, x == 2 ? 128 : 255)
    }
    let surface = try #require(BitmapSurface.make(image))
    defer { cairo_surface_destroy(surface) }
    #expect(cairo_image_surface_get_format(surface) == CAIRO_FORMAT_ARGB32)
    #expect(
      UnsafeRawPointer(cairo_image_surface_get_data(surface)) == image.bytes.baseAddress)
    #expect(Int(cairo_image_surface_get_stride(surface)) == image.bytesPerRow)
    #expect(cairo_image_surface_get_width(surface) == 3)
    #expect(cairo_image_surface_get_height(surface) == 2)
    // Cairo's premultiplied 0xAARRGGBB word is the entry's B, G, R, A bytes.
    #expect(word(surface, x: 1, y: 1) == 0xff0a_65c8)
    // 128 / 255 of (20, 100, 200), rounded: (10, 50, 100).
    #expect(word(surface, x: 2, y: 0) == 0x800a_3264)
  }

  @Test func bgr32IsCairoRGB24OverTheSameBytes() throws {
    let image = bitmap(width: 2, height: 2, style: .bgr32) { x, y in
      RGBA(UInt8(1 + x), UInt8(2 + y), 3)
    }
    let surface = try #require(BitmapSurface.make(image))
    defer { cairo_surface_destroy(surface) }
    #expect(cairo_image_surface_get_format(surface) == CAIRO_FORMAT_RGB24)
    #expect(
      UnsafeRawPointer(cairo_image_surface_get_data(surface)) == image.bytes.baseAddress)
    #expect(word(surface, x: 1, y: 1) & 0x00ff_ffff == 0x0002_0303)
  }

  @Test func theSurfaceKeepsItsBitmapUntilCairoLetsGo() throws {
    weak var watched: Bitmap?
    let surface: OpaquePointer = try {
      let image = bitmap(width: 4, height: 4, style: .bgra32) { _, _ in RGBA(1, 2, 3) }
      watched = image
      return try #require(BitmapSurface.make(image))
    }()
    #expect(watched != nil)
    #expect(word(surface, x: 3, y: 3) == 0xff01_0203)
    cairo_surface_destroy(surface)
    #expect(watched == nil)
  }

  @Test func gray8IsWidenedIntoASurfaceOfItsOwn() throws {
    let image = bitmap(width: 2, height: 1, style: .gray8) { x, _ in
      let grey = UInt8(x == 0 ? 40 : 250)
      return RGBA(grey, grey, grey)
    }
    let surface = try #require(BitmapSurface.make(image))
    defer { cairo_surface_destroy(surface) }
    #expect(
      UnsafeRawPointer(cairo_image_surface_get_data(surface)) != image.bytes.baseAddress)
    #expect(word(surface, x: 0, y: 0) & 0x00ff_ffff == 0x0028_2828)
    #expect(word(surface, x: 1, y: 0) & 0x00ff_ffff == 0x00fa_fafa)
  }
}

import CGtk
import ImageTables

/// A Cairo image surface over a table entry's bytes, with no decode and no copy.
///
/// On a little-endian machine a `bgra32` entry (B, G, R, A, premultiplied) is exactly
/// Cairo's `ARGB32`, and a `bgr32` entry (B, G, R, then 255) exactly its `RGB24`; rows
/// padded to 64 bytes are a valid stride. So the surface points straight into the
/// table's memory map, and the surface holds the `Bitmap` (which pins the entry) until
/// Cairo lets the surface go. `bgr555` and `gray8` have no Cairo format: those are
/// widened into a surface of their own, one copy, as they are drawn.
enum BitmapSurface {
  /// Where the surface keeps its `Bitmap`; Cairo knows user data by the key's address.
  nonisolated(unsafe) private static let bitmapKey = UnsafeMutablePointer<cairo_user_data_key_t>
    .allocate(capacity: 1)

  /// A new surface (the caller destroys it) showing `bitmap`, or nil if Cairo refused.
  static func make(_ bitmap: Bitmap) -> OpaquePointer? {
    guard let format = cairoFormat(bitmap.style), let base = bitmap.bytes.baseAddress else {
      return widened(bitmap)
    }
    let pixels = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self))
    guard
      let surface = cairo_image_surface_create_for_data(
        pixels, format, Int32(bitmap.width), Int32(bitmap.height), Int32(bitmap.bytesPerRow)),
      cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS
    else { return nil }
    let owner = Unmanaged.passRetained(bitmap).toOpaque()
    let kept = cairo_surface_set_user_data(surface, bitmapKey, owner) { owner in
      Unmanaged<Bitmap>.fromOpaque(owner!).release()
    }
    guard kept == CAIRO_STATUS_SUCCESS else {
      Unmanaged<Bitmap>.fromOpaque(owner).release()
      cairo_surface_destroy(surface)
      return nil
    }
    return surface
  }

  /// The Cairo format whose bytes are the style's, if there is one.
  static func cairoFormat(_ style: PixelStyle) -> cairo_format_t? {
    #if _endian(little)
      switch style {
      case .bgra32: return CAIRO_FORMAT_ARGB32
      case .bgr32: return CAIRO_FORMAT_RGB24
      case .bgr555, .gray8: return nil
      }
    #else
      return nil
    #endif
  }

  /// `bitmap` widened into a new `RGB24` surface, for styles Cairo cannot read.
  private static func widened(_ bitmap: Bitmap) -> OpaquePointer? {
    guard
      let surface = cairo_image_surface_create(
        CAIRO_FORMAT_RGB24, Int32(bitmap.width), Int32(bitmap.height)),
      cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS,
      let data = cairo_image_surface_get_data(surface)
    else { return nil }
    let stride = Int(cairo_image_surface_get_stride(surface))
    for y in 0..<bitmap.height {
      let row = UnsafeMutableRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
      for x in 0..<bitmap.width {
        let pixel = bitmap.pixel(x: x, y: y)
        row[x] =
          0xff00_0000 | UInt32(pixel.red) << 16 | UInt32(pixel.green) << 8
          | UInt32(pixel.blue)
      }
    }
    cairo_surface_mark_dirty(surface)
    return surface
  }
}

import CVipsShim

/// Rows of 8-bit pixels stored as a table's styles store them, in C loops without
/// Swift's checks (the rasterizer's rows: 4.8% of a render of small photos in Swift,
/// 3% in C).
public enum StylePixels {
  /// `count` RGBA pixels as premultiplied BGRA, each colour `(c x a + 127) / 255`: the
  /// bytes of `PixelStyle.bgra32`.
  public static func storePremultipliedBGRA(
    from rgba: UnsafePointer<UInt8>, to bgra: UnsafeMutableRawPointer, count: Int
  ) {
    cvips_store_premultiplied_bgra(rgba, bgra.assumingMemoryBound(to: UInt8.self), Int32(count))
  }

  /// `count` RGB pixels as BGR with a fourth byte of 255: the bytes of `PixelStyle.bgr32`.
  public static func storeBGRX(
    from rgb: UnsafePointer<UInt8>, to bgrx: UnsafeMutableRawPointer, count: Int
  ) {
    cvips_store_bgrx(rgb, bgrx.assumingMemoryBound(to: UInt8.self), Int32(count))
  }
}

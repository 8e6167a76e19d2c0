/// How much a loader may shrink while it decodes (JPEG's DCT scaling, WebP's scaled
/// decode), chosen the way libvips's thumbnail chooses it.
///
/// Shrink-on-load is a block shrink: libvips keeps at least a factor of two for the
/// resample that follows, so it is never the last step. Other loaders (PNG, TIFF, GIF)
/// decode whole.
///
/// ```swift
/// ShrinkOnLoad.factor(loader: "jpegload", shrink: 13.2)  // 4
/// ```
public enum ShrinkOnLoad {
  /// The integer factor libvips's thumbnail lets `loader` shrink by when the image must
  /// shrink by `shrink` (source pixels per output pixel) in all.
  public static func factor(loader: String, shrink: Double) -> Int {
    guard loader == "jpegload" || loader == "webpload" else { return 1 }
    switch shrink {
    case 16...: return 8
    case 8...: return 4
    case 4...: return 2
    default: return 1
    }
  }

  /// ``factor(loader:shrink:)``, but never so large that the image's `smallerSide`
  /// would shrink below one pixel: libvips 8.14's jpegload aborts the process on an image
  /// of no rows ("bad dimensions"), as a 2049x3 JPEG shrunk by 8 gave.
  public static func factor(loader: String, shrink: Double, smallerSide: Int) -> Int {
    var factor = Self.factor(loader: loader, shrink: shrink)
    while factor > 1, smallerSide / factor < 1 { factor /= 2 }
    return factor
  }

  /// The load options that ask `loader` to shrink by `factor` on load.
  static func options(loader: String, factor: Int) -> String {
    guard factor > 1 else { return "" }
    switch loader {
    case "jpegload": return "shrink=\(factor)"
    case "webpload": return "scale=\(1.0 / Double(factor))"
    default: return ""
    }
  }
}

import Foundation
import Vips

/// Text to lay over a picture: white ink on transparency.
enum TextImage {
  /// `text` as it reads: libvips's text is Pango markup, so `&`, `<` and `>` (a URL's
  /// query, a file name) are escaped.
  static func white(_ text: String, font: String = "sans 11") throws -> VipsImage {
    let ink = try VipsImage.text(plain(text), font: font)
    return try VipsImage(
      pixels: [UInt8](repeating: 255, count: ink.width * ink.height * 3), width: ink.width,
      height: ink.height, bands: 3
    ).masked(by: ink)
  }

  /// `text` with Pango markup's special characters escaped.
  static func plain(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;")
  }
}

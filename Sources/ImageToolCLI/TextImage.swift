import Vips

/// Text to lay over a picture: white ink on transparency.
enum TextImage {
  static func white(_ text: String, font: String = "sans 11") throws -> VipsImage {
    let ink = try VipsImage.text(text, font: font)
    return try VipsImage(
      pixels: [UInt8](repeating: 255, count: ink.width * ink.height * 3), width: ink.width,
      height: ink.height, bands: 3
    ).masked(by: ink)
  }
}

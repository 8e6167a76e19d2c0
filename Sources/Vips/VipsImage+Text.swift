import CVips
import CVipsShim

extension VipsImage {
  /// Renders `text` with Pango as a one-band 8-bit mask (255 where the ink is),
  /// wrapped at `width` pixels when given.
  ///
  /// ```swift
  /// let caption = try VipsImage.text("3 of 12", font: "sans 14")
  /// ```
  public static func text(
    _ text: String, font: String = "sans 12", width: Int? = nil, dpi: Int = 72
  )
    throws(VipsError) -> VipsImage
  {
    guard !text.isEmpty else {
      throw .invalidArgument(operation: "text", message: "there is no text to render")
    }
    let rendered = try create("text") { out in
      cvips_text(out, text, font, Int32(width ?? 0), Int32(dpi))
    }
    return try rendered.derive("copy") { input, out in
      cvips_copy_interpretation(input, out, VIPS_INTERPRETATION_B_W)
    }
  }
}

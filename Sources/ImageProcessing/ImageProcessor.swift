import Vips

/// One step of a format's look: takes an image, returns the next (FastImageCache's
/// drawing block, as a reusable, registered piece).
///
/// A processor's `identifier` names it, its version and its parameters, and is part
/// of every format fingerprint that uses it: change the version or a parameter and
/// the tables that hold its output are re-rendered.
///
/// <!-- snippet context: import Vips -->
/// ```swift
/// struct Invert: ImageProcessor {
///   var identifier: String { "invert@1" }
///   func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
///     // 255 - each colour band; an alpha band, if there is one, is kept as it is.
///     let srgb = try image.toSRGB()
///     let alpha = srgb.hasAlpha
///     return try srgb.linear(
///       alpha ? [-1, -1, -1, 1] : [-1, -1, -1], alpha ? [255, 255, 255, 0] : [255, 255, 255],
///       clampToUInt8: true)
///   }
/// }
/// ```
public protocol ImageProcessor: Sendable {
  /// Stable text naming the processor, its version and its parameters.
  var identifier: String { get }
  /// Returns the processed image; the input is never changed.
  func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage
}

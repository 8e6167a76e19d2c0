import Vips

/// One step of a format's look: takes an image, returns the next (FastImageCache's
/// drawing block, as a reusable, registered piece).
///
/// A registered processor's name, definition version and arguments are part of every
/// format fingerprint that uses it: raise the ``ProcessorDefinition/version`` or change
/// an argument and the tables that hold its output are re-rendered. Its `identifier`
/// names it in errors and can only add to the fingerprint (state its arguments do not
/// hold); `arguments.identifier` (`name@version(parameter: value, ...)`) is the usual one.
///
/// <!-- snippet context: import Vips -->
/// ```swift
/// struct Invert: ImageProcessor {
///   let arguments: ProcessorArguments
///   var identifier: String { arguments.identifier }
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
  /// Stable text naming the processor, its version and its parameters. For a
  /// registered processor the fingerprint records its name, version and arguments
  /// anyway; what this adds beyond `arguments.identifier` is recorded after them.
  var identifier: String { get }
  /// Returns the processed image; the input is never changed.
  func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage
}

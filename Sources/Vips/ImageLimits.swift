/// Bounds an image's header must respect before any pixel is decoded.
///
/// A decompression bomb (a tiny file whose header claims a huge image) is refused
/// from its header alone, in milliseconds and without allocating for its pixels.
///
/// <!-- snippet context: let path = "photo.jpg" -->
/// ```swift
/// let strict = ImageLimits(maxPixels: 20_000_000, maxDimension: 10_000)
/// let image = try VipsImage(file: path, limits: strict)
/// ```
public struct ImageLimits: Sendable, Equatable {
  /// The most pixels an image may have, counting every page: 100 million by default.
  public var maxPixels: Int
  /// The longest side an image may have, in pixels: 65,535 by default (the JPEG limit).
  public var maxDimension: Int

  public init(maxPixels: Int = 100_000_000, maxDimension: Int = 65_535) {
    self.maxPixels = maxPixels
    self.maxDimension = maxDimension
  }

  /// The default limits.
  public static let standard = ImageLimits()

  /// Throws when `header` is over either limit.
  public func check(_ header: ImageHeader, source: String) throws(VipsError) {
    if max(header.width, header.height) > maxDimension {
      throw .dimensionTooLarge(
        source: source, width: header.width, height: header.height, limit: maxDimension)
    }
    if header.pixelCount > maxPixels {
      throw .tooManyPixels(
        source: source, width: header.width, height: header.height, pages: header.pages,
        limit: maxPixels)
    }
  }
}

import Foundation
import Vips

/// Decodes a source once, with shrink-on-load, at the smallest size that still covers
/// every box a family needs, upright and in 8-bit sRGB (an embedded profile applied
/// once, here, rather than by every format): each pipeline shrinks and crops from it.
public enum SourceDecoder {
  /// A pixel box a format needs.
  public struct Box: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
      self.width = width
      self.height = height
    }
  }

  /// The size to decode an image of `width` by `height` (as displayed) at, so that it
  /// covers every box without enlarging: never larger than the image itself.
  public static func decodeSize(width: Int, height: Int, covering boxes: [Box]) -> Box {
    let scale =
      boxes.map { max(Double($0.width) / Double(width), Double($0.height) / Double(height)) }
      .max() ?? 1
    guard scale < 1 else { return Box(width: width, height: height) }
    // One pixel of margin: thumbnail rounds down, and a fill must not come up short.
    return Box(
      width: min(width, Int((Double(width) * scale).rounded(.up)) + 1),
      height: min(height, Int((Double(height) * scale).rounded(.up)) + 1))
  }

  /// Decodes the file once, upright (EXIF applied), covering every box.
  public static func decode(
    file path: String, covering boxes: [Box], limits: ImageLimits = .standard
  )
    throws(VipsError) -> VipsImage
  {
    let header = try VipsImage(file: path, limits: limits).header
    let size = decodeSize(width: header.displayWidth, height: header.displayHeight, covering: boxes)
    return try VipsImage.thumbnail(
      file: path, width: size.width, height: size.height,
      options: ThumbnailOptions(crop: .none, size: .down, limits: limits)
    ).toSRGB().materialized()
  }

  /// Decodes bytes once, upright, covering every box.
  public static func decode(
    bytes: [UInt8], name: String, covering boxes: [Box], limits: ImageLimits = .standard
  ) throws(VipsError) -> VipsImage {
    let header = try VipsImage(bytes: bytes, name: name, limits: limits).header
    let size = decodeSize(width: header.displayWidth, height: header.displayHeight, covering: boxes)
    return try VipsImage.thumbnail(
      bytes: bytes, name: name, width: size.width, height: size.height,
      options: ThumbnailOptions(crop: .none, size: .down, limits: limits)
    ).toSRGB().materialized()
  }
}

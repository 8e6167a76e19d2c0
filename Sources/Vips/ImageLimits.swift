/// Bounds an image's header must respect before any pixel is decoded.
///
/// A decompression bomb (a tiny file whose header claims a huge image) is refused
/// from its header alone, in milliseconds and without allocating for its pixels: by its
/// pixel count and sides, and, once the decode's shrink-on-load is known, by the memory
/// its decode would take (``DecodeMemory``, ``checkDecodeMemory(_:shrunkBy:fileSize:source:)``).
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
  /// The most memory one decode may take, estimated from its header (``DecodeMemory``):
  /// 200 MiB by default. A file larger than that over ``decodeMemoryPerFileByte`` (1 MiB by
  /// default) may take more, that many bytes for each of its bytes: a file that size holds
  /// a real image that needs it (a 48-megapixel HEIF photo of 6 MB takes about 330 MB),
  /// where a small file asking for more is a bomb.
  public var maxDecodeMemory: Int
  /// The memory a decode may take for each byte of its file, when that is more than
  /// ``maxDecodeMemory``: 200 by default; 0 makes ``maxDecodeMemory`` a hard limit
  /// (`imgtool`'s `--max-decode-memory` does).
  public var decodeMemoryPerFileByte: Int

  public init(
    maxPixels: Int = 100_000_000, maxDimension: Int = 65_535, maxDecodeMemory: Int = 200 << 20,
    decodeMemoryPerFileByte: Int = 200
  ) {
    self.maxPixels = maxPixels
    self.maxDimension = maxDimension
    self.maxDecodeMemory = maxDecodeMemory
    self.decodeMemoryPerFileByte = decodeMemoryPerFileByte
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

  /// The most memory a decode of a file of `fileSize` bytes may take.
  public func decodeMemoryAllowed(fileSize: Int) -> Int {
    let (perByte, overflow) = fileSize.multipliedReportingOverflow(
      by: max(0, decodeMemoryPerFileByte))
    return overflow ? Int.max : max(maxDecodeMemory, perByte)
  }

  /// Throws when decoding `header`'s image with the loader shrinking by `factor` would
  /// take more memory than a file of `fileSize` bytes may (``decodeMemoryAllowed(fileSize:)``).
  public func checkDecodeMemory(
    _ header: ImageHeader, shrunkBy factor: Int, fileSize: Int, source: String
  ) throws(VipsError) {
    let memory = DecodeMemory(header: header, shrunkBy: factor)
    let allowed = decodeMemoryAllowed(fileSize: fileSize)
    guard memory.bytes > allowed else { return }
    throw .decodeMemoryTooLarge(
      source: source, bytes: memory.bytes, holds: memory.loaderHolds, allowed: allowed,
      fileSize: fileSize, perFileByte: allowed > maxDecodeMemory ? decodeMemoryPerFileByte : 0)
  }
}

/// Where an entry's bytes lie: its rows and its place in the table file.
///
/// Rows are padded to a multiple of 64 bytes (a cache line, and what SIMD loads and
/// GPU uploads like); each entry starts on a 64-byte boundary, and on a page boundary
/// when it is a page or larger, so it can be mapped, copied or uploaded on its own.
public struct EntryLayout: Sendable, Equatable {
  /// The slot's size in pixels: the largest an entry may be.
  public let width: Int
  public let height: Int
  public let style: PixelStyle
  /// Bytes from one row to the next: width x bytes per pixel, rounded up to 64.
  public let bytesPerRow: Int
  /// Bytes of pixels in one entry: bytesPerRow x height.
  public let bytesPerEntry: Int
  /// Bytes from one entry to the next in the file.
  public let entryStride: Int

  public static let rowAlignment = 64
  public static let pageSize = 4096

  public init(width: Int, height: Int, style: PixelStyle) {
    self.width = width
    self.height = height
    self.style = style
    bytesPerRow = Self.roundUp(max(1, width) * style.bytesPerPixel, to: Self.rowAlignment)
    bytesPerEntry = bytesPerRow * max(1, height)
    entryStride =
      bytesPerEntry >= Self.pageSize
      ? Self.roundUp(bytesPerEntry, to: Self.pageSize)
      : Self.roundUp(bytesPerEntry, to: Self.rowAlignment)
  }

  static func roundUp(_ value: Int, to multiple: Int) -> Int {
    (value + multiple - 1) / multiple * multiple
  }
}

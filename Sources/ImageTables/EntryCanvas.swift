/// The slot a writer draws one entry into, in place: the table's own bytes.
public struct EntryCanvas: ~Copyable {
  /// The slot's bytes: `height` rows of `bytesPerRow` bytes.
  public let bytes: UnsafeMutableRawBufferPointer
  public let bytesPerRow: Int
  /// The size being written (at most the format's pixel size).
  public let width: Int
  public let height: Int
  public let style: PixelStyle

  /// A canvas over memory of your own (the table makes its own for its slots).
  public init(
    bytes: UnsafeMutableRawBufferPointer, bytesPerRow: Int, width: Int, height: Int,
    style: PixelStyle
  ) {
    precondition(bytesPerRow >= width * style.bytesPerPixel && bytes.count >= bytesPerRow * height)
    self.bytes = bytes
    self.bytesPerRow = bytesPerRow
    self.width = width
    self.height = height
    self.style = style
  }

  /// The bytes of row `y` that hold pixels.
  public func row(_ y: Int) -> UnsafeMutableRawBufferPointer {
    UnsafeMutableRawBufferPointer(
      rebasing: bytes[(y * bytesPerRow)..<(y * bytesPerRow + width * style.bytesPerPixel)])
  }

  /// Stores `pixel` (straight RGBA) at (`x`, `y`) in the table's style.
  public func set(x: Int, y: Int, _ pixel: RGBA) {
    style.store(pixel, at: bytes.baseAddress! + y * bytesPerRow + x * style.bytesPerPixel)
  }
}

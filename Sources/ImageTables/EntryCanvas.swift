/// What a writer draws one entry into: rows laid out as in the entry's slot, which the
/// table then writes whole (``ImageTable/write(entityID:sourceVersion:width:height:draw:)``).
public struct EntryCanvas: ~Copyable {
  /// The bytes drawn: `height` rows of `bytesPerRow` bytes, laid out as in the slot.
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

  /// The bytes of row `y` that hold pixels. A row outside the canvas traps (in release
  /// builds too): a buggy drawing must not write into the next entry.
  public func row(_ y: Int) -> UnsafeMutableRawBufferPointer {
    precondition((0..<height).contains(y), "row \(y) is outside the canvas's 0..<\(height)")
    return UnsafeMutableRawBufferPointer(
      rebasing: bytes[(y * bytesPerRow)..<(y * bytesPerRow + width * style.bytesPerPixel)])
  }

  /// Stores `pixel` (straight RGBA) at (`x`, `y`) in the table's style.
  /// A point outside the canvas traps (in release builds too).
  public func set(x: Int, y: Int, _ pixel: RGBA) {
    precondition(
      (0..<width).contains(x) && (0..<height).contains(y),
      "(\(x), \(y)) is outside the \(width)x\(height) canvas")
    style.store(pixel, at: bytes.baseAddress! + y * bytesPerRow + x * style.bytesPerPixel)
  }
}

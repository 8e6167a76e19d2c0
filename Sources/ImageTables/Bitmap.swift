import Synchronization

/// A read-only, zero-copy view of one table entry's pixels.
///
/// The bytes live in the table's memory map: getting a `Bitmap` costs no system
/// call, no decode and no copy. While any reference to it lives, its bytes never
/// change: the table will not evict, overwrite, delete or unmap the entry under it
/// (reset included); it reuses the slot only after the last reference goes.
///
/// <!-- snippet context: let avatar = try ImageFormat(name: "avatar", width: 32, height: 32) -->
/// <!-- snippet context: let folder = URL(fileURLWithPath: ".imgtool-cache") -->
/// <!-- snippet context: let table = try ImageTable(format: avatar, directory: folder) -->
/// <!-- snippet context: let hash = "3f2a" -->
/// ```swift
/// if let avatar = table.bitmap(entityID: "people/ada.jpg", sourceVersion: hash) {
///   let corner = avatar.pixel(x: 0, y: 0)  // straight RGBA
///   avatar.bytes  // rows of avatar.bytesPerRow bytes, in avatar.style
/// }
/// ```
public final class Bitmap: @unchecked Sendable {
  // Safety of @unchecked Sendable: every property is immutable, and the bytes it views
  // are not written while this object is referenced (the table's pin rule).
  /// The width actually drawn, in pixels (at most the format's).
  public let width: Int
  /// The height actually drawn, in pixels (at most the format's).
  public let height: Int
  /// Bytes from one row to the next (a multiple of 64).
  public let bytesPerRow: Int
  public let style: PixelStyle
  public let entityID: String
  public let sourceVersion: String
  let base: UnsafeRawPointer
  /// Keeps the bytes alive as long as this view when they are memory of its own. A
  /// table's view holds none: its pin keeps the table's mapping (see
  /// `TableFiles.keepWhilePinned`), so a hit touches no reference count two threads share.
  let owner: AnyObject?
  /// The pin this view holds on its table slot (in its table instance's reader record
  /// of the shared file), released when the view goes.
  private let pin: UnsafeMutablePointer<Atomic<UInt32>>?

  init(
    base: UnsafeRawPointer, mapping: AnyObject?, width: Int, height: Int, bytesPerRow: Int,
    style: PixelStyle, entityID: String, sourceVersion: String,
    pin: UnsafeMutablePointer<Atomic<UInt32>>? = nil
  ) {
    self.base = base
    self.owner = mapping
    self.pin = pin
    self.width = width
    self.height = height
    self.bytesPerRow = bytesPerRow
    self.style = style
    self.entityID = entityID
    self.sourceVersion = sourceVersion
  }

  deinit {
    // Wrapping: a pin word of a shared file damaged or cut short (read as zero) never traps.
    pin?.pointee.wrappingSubtract(1, ordering: .releasing)
  }

  /// A bitmap of its own memory (not in a table), drawn once by `draw`: for photos
  /// decoded on the spot and for tests. Rows are padded as in a table.
  public convenience init(
    width: Int, height: Int, style: PixelStyle, entityID: String = "", sourceVersion: String = "",
    draw: (borrowing EntryCanvas) throws -> Void
  ) rethrows {
    let layout = EntryLayout(width: width, height: height, style: style)
    let memory = OwnedBytes(count: layout.bytesPerEntry)
    try draw(
      EntryCanvas(
        bytes: memory.bytes, bytesPerRow: layout.bytesPerRow, width: width, height: height,
        style: style))
    self.init(
      base: UnsafeRawPointer(memory.bytes.baseAddress!), mapping: memory, width: width,
      height: height, bytesPerRow: layout.bytesPerRow, style: style, entityID: entityID,
      sourceVersion: sourceVersion)
  }

  /// The entry's bytes: `height` rows of `bytesPerRow` bytes, each starting with
  /// `width` pixels in ``style``.
  public var bytes: UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: base, count: bytesPerRow * height)
  }

  /// The bytes of row `y` that hold pixels (without the row's padding).
  public func row(_ y: Int) -> UnsafeRawBufferPointer {
    precondition((0..<height).contains(y), "row \(y) is outside 0..<\(height)")
    return UnsafeRawBufferPointer(start: base + y * bytesPerRow, count: width * style.bytesPerPixel)
  }

  /// The pixel at (`x`, `y`) as straight RGBA (see ``PixelStyle/load(from:)``).
  public func pixel(x: Int, y: Int) -> RGBA {
    precondition(
      (0..<width).contains(x) && (0..<height).contains(y),
      "(\(x), \(y)) is outside \(width)x\(height)")
    return style.load(from: base + y * bytesPerRow + x * style.bytesPerPixel)
  }
}

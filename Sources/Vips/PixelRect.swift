/// A rectangle in pixels, from the top-left corner.
public struct PixelRect: Sendable, Equatable, CustomStringConvertible {
  public var x: Int
  public var y: Int
  public var width: Int
  public var height: Int

  public init(x: Int, y: Int, width: Int, height: Int) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  /// The empty rectangle at the origin.
  public static let zero = PixelRect(x: 0, y: 0, width: 0, height: 0)

  /// The largest square centred in a `width` by `height` image.
  public static func centredSquare(width: Int, height: Int) -> PixelRect {
    let side = min(width, height)
    return PixelRect(x: (width - side) / 2, y: (height - side) / 2, width: side, height: side)
  }

  public var description: String { "(\(x), \(y), \(width), \(height))" }
}

/// A rectangle in points, as a view would place something.
public struct Frame: Sendable, Equatable, CustomStringConvertible {
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

  public static let zero = Frame(x: 0, y: 0, width: 0, height: 0)

  public var description: String { "(\(x), \(y), \(width), \(height))" }
}

/// A rectangle in points with fractional coordinates (UIKit's `CGRect` on 64-bit): what an
/// animation passes through between two ``Frame``s.
///
/// The scrubber's layout frames are whole points (Nimbus floors every one of them), so
/// they are ``Frame``s; a frame sampled during an animation is a `Rect`.
public struct Rect: Sendable, Equatable, CustomStringConvertible {
  public var x: Double
  public var y: Double
  public var width: Double
  public var height: Double

  public init(x: Double, y: Double, width: Double, height: Double) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  /// The same rectangle as `frame`, in whole points.
  public init(_ frame: Frame) {
    self.init(
      x: Double(frame.x), y: Double(frame.y), width: Double(frame.width),
      height: Double(frame.height))
  }

  /// The rectangle `fraction` of the way from `self` to `other`, each edge linearly
  /// (0 is `self`, 1 is `other`).
  public func interpolated(to other: Rect, by fraction: Double) -> Rect {
    func mix(_ a: Double, _ b: Double) -> Double { a + (b - a) * fraction }
    return Rect(
      x: mix(x, other.x), y: mix(y, other.y), width: mix(width, other.width),
      height: mix(height, other.height))
  }

  /// The nearest whole-point frame, for drawing onto a pixel grid.
  public var rounded: Frame {
    Frame(
      x: Int(x.rounded()), y: Int(y.rounded()), width: Int(width.rounded()),
      height: Int(height.rounded()))
  }

  public var description: String { "(\(x), \(y), \(width), \(height))" }
}

/// One pixel as straight (not premultiplied) 8-bit red, green, blue and alpha.
public struct RGBA: Sendable, Hashable, CustomStringConvertible {
  public var red: UInt8
  public var green: UInt8
  public var blue: UInt8
  public var alpha: UInt8

  public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8, _ alpha: UInt8 = 255) {
    self.red = red
    self.green = green
    self.blue = blue
    self.alpha = alpha
  }

  public var description: String { "RGBA(\(red), \(green), \(blue), \(alpha))" }
}

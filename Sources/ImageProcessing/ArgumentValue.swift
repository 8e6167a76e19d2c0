import Foundation
import ImageTables

/// A value written in a pipeline spec: a number, a quoted string, a colour or a bare word.
public enum ArgumentValue: Sendable, Equatable, CustomStringConvertible {
  case number(Double)
  case string(String)
  case color(RGBA)
  case word(String)

  /// The value as the grammar writes it, canonically: `2`, `0.5`, `"text"`,
  /// `#rrggbbaa`, `attention`. Identifiers are made of these.
  public var description: String {
    switch self {
    case .number(let value):
      value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    case .string(let value):
      "\""
        + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
          of: "\"", with: "\\\"")
        + "\""
    case .color(let value):
      String(format: "#%02x%02x%02x%02x", value.red, value.green, value.blue, value.alpha)
    case .word(let value):
      value
    }
  }

  /// What kind of value this is, for error messages.
  var kindName: String {
    switch self {
    case .number: "a number"
    case .string: "a string"
    case .color: "a colour"
    case .word: "a word"
    }
  }

  /// Parses `#rgb`, `#rrggbb` or `#rrggbbaa` (the `#` included).
  public static func parseColor(_ text: String) -> RGBA? {
    guard text.hasPrefix("#") else { return nil }
    let digits = Array(text.dropFirst())
    guard [3, 6, 8].contains(digits.count), digits.allSatisfy(\.isHexDigit) else { return nil }
    func byte(_ slice: ArraySlice<Character>) -> UInt8 {
      let text = String(slice)
      return UInt8(text.count == 1 ? text + text : text, radix: 16)!
    }
    if digits.count == 3 {
      return RGBA(byte(digits[0...0]), byte(digits[1...1]), byte(digits[2...2]))
    }
    return RGBA(
      byte(digits[0..<2]), byte(digits[2..<4]), byte(digits[4..<6]),
      digits.count == 8 ? byte(digits[6..<8]) : 255)
  }
}

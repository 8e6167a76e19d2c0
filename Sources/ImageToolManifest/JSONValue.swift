import Foundation

/// A JSON value whose object keys keep the order they were given in, so that
/// `--json` output reads in the same order as the documentation lists the keys.
public enum JSONValue: Sendable, Equatable, ExpressibleByStringLiteral,
  ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral
{
  case string(String)
  case integer(Int)
  case number(Double)
  case bool(Bool)
  case array([JSONValue])
  case object([(String, JSONValue)])
  case null

  public init(stringLiteral value: String) { self = .string(value) }
  public init(integerLiteral value: Int) { self = .integer(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }

  /// Compact JSON text on one line.
  public var text: String {
    switch self {
    case .string(let value): Self.quoted(value)
    case .integer(let value): String(value)
    case .number(let value): value.isFinite ? String(value) : "null"
    case .bool(let value): value ? "true" : "false"
    case .null: "null"
    case .array(let values): "[" + values.map(\.text).joined(separator: ",") + "]"
    case .object(let members):
      "{" + members.map { Self.quoted($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
    }
  }

  /// Indented JSON, two spaces a level, for people to read and edit.
  public var pretty: String { pretty(indent: "") }

  private func pretty(indent: String) -> String {
    let inner = indent + "  "
    switch self {
    case .array(let values) where !values.isEmpty:
      if values.allSatisfy({
        if case .object = $0 { false } else if case .array = $0 { false } else { true }
      }) {
        return text
      }
      return "[\n" + values.map { inner + $0.pretty(indent: inner) }.joined(separator: ",\n")
        + "\n\(indent)]"
    case .object(let members) where !members.isEmpty:
      return "{\n"
        + members.map { inner + Self.quoted($0.0) + ": " + $0.1.pretty(indent: inner) }
        .joined(separator: ",\n") + "\n\(indent)}"
    default:
      return text
    }
  }

  public static func == (left: JSONValue, right: JSONValue) -> Bool { left.text == right.text }

  static func quoted(_ string: String) -> String {
    var result = "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}

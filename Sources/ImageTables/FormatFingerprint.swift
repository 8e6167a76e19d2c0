import Foundation

/// The canonical dictionary of a format, stored in its table's header. Two fingerprints
/// are equal when every field is.
///
/// Most fields decide an entry's pixels (size, style, pipeline, processors): a table
/// written for other values of them is re-rendered. The ``settingsFields`` do not
/// (how many entries the table keeps, the devices and the protection mode): a table
/// whose fingerprint differs only in those keeps its entries.
public struct FormatFingerprint: Sendable, Equatable, CustomStringConvertible {
  /// Field names and values, in a fixed order.
  public let fields: [(String, String)]

  public init(fields: [(String, String)]) { self.fields = fields }

  /// The fields as a dictionary.
  public var dictionary: [String: String] {
    Dictionary(fields, uniquingKeysWith: { _, last in last })
  }

  /// One line per field, `name=value`, with newlines and `\` escaped: what the header stores.
  public var text: String {
    fields.map { "\($0.0)=\(Self.escape($0.1))" }.joined(separator: "\n")
  }

  public init?(text: String) {
    var fields: [(String, String)] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      guard let equals = line.firstIndex(of: "=") else { return nil }
      fields.append((String(line[..<equals]), Self.unescape(line[line.index(after: equals)...])))
    }
    self.fields = fields
  }

  /// The names of the fields whose values differ between the two, in order.
  public func changedFields(from other: FormatFingerprint) -> [String] {
    let mine = dictionary
    let theirs = other.dictionary
    let names = fields.map(\.0) + other.fields.map(\.0).filter { mine[$0] == nil }
    return names.filter { mine[$0] != theirs[$0] }
  }

  /// The fields that do not change an entry's bytes: a change to them is made in
  /// place, keeping the entries (a smaller `maximumCount` evicts the least recently used).
  public static let settingsFields: Set<String> = ["maximumCount", "devices", "protectionMode"]

  /// The names of the fields that decide pixels and differ between the two, in order:
  /// a table written for `other` must be re-rendered when this is not empty.
  public func changedPixelFields(from other: FormatFingerprint) -> [String] {
    changedFields(from: other).filter { !Self.settingsFields.contains($0) }
  }

  /// The value of the field `name`, if there is one.
  public subscript(_ name: String) -> String? {
    fields.first { $0.0 == name }?.1
  }

  public var description: String { text }

  public static func == (left: FormatFingerprint, right: FormatFingerprint) -> Bool {
    left.text == right.text
  }

  private static func escape(_ value: String) -> String {
    value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
  }

  private static func unescape(_ value: Substring) -> String {
    var result = ""
    var escaping = false
    for character in value {
      if escaping {
        result.append(character == "n" ? "\n" : character)
        escaping = false
      } else if character == "\\" {
        escaping = true
      } else {
        result.append(character)
      }
    }
    return result
  }
}

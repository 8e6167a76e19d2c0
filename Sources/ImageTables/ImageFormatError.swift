/// A format that cannot be made as described.
public enum ImageFormatError: Error, Sendable, Equatable, CustomStringConvertible {
  case invalidName(field: String, value: String, reason: String)
  case invalidValue(format: String, field: String, reason: String)

  public var description: String {
    switch self {
    case .invalidName(let field, let value, let reason):
      "invalid format \(field) '\(value)': \(reason)"
    case .invalidValue(let format, let field, let reason):
      "format '\(format)': invalid \(field): \(reason)"
    }
  }
}

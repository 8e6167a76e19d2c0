/// A manifest that cannot be used, naming the file and the field.
public enum ManifestError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The file cannot be read (missing, not permitted).
  case unreadable(path: String, message: String)
  /// The file is not JSON; the message has the line and column when Foundation gives them.
  case invalidJSON(path: String, message: String)
  /// `field` is a path into the JSON, like `formats[2].size`.
  case invalidField(path: String, field: String, message: String)

  public var description: String {
    switch self {
    case .unreadable(let path, let message): "\(path): cannot read the manifest: \(message)"
    case .invalidJSON(let path, let message): "\(path): not valid JSON: \(message)"
    case .invalidField(let path, let field, let message): "\(path): \(field): \(message)"
    }
  }
}

/// A processor that cannot be registered.
public enum RegistryError: Error, Sendable, Equatable, CustomStringConvertible {
  case nameTaken(String)
  case invalidName(String)
  case invalidParameter(processor: String, parameter: String, reason: String)

  public var description: String {
    switch self {
    case .nameTaken(let name):
      "a processor named '\(name)' is already registered; pass replacing: true to replace it"
    case .invalidName(let name):
      "'\(name)' is not a processor name: use letters, digits and '_', starting with a letter"
    case .invalidParameter(let processor, let parameter, let reason):
      "\(processor): parameter '\(parameter)': \(reason)"
    }
  }
}

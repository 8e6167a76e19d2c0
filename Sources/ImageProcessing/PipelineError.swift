/// A pipeline spec that cannot be built, with where (1-based column) and what was expected.
///
/// ```
/// fill(crop: atention) | circle
///            ^ column 12: crop must be one of centre | attention | entropy, not atention
/// ```
public enum PipelineError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The text does not follow the grammar.
  case syntax(spec: String, column: Int, message: String)
  /// A processor name no one registered.
  case unknownProcessor(spec: String, column: Int, name: String, suggestions: [String])
  /// An argument the processor does not take, or of the wrong kind or range.
  case invalidArgument(spec: String, column: Int, processor: String, message: String)
  /// The processor's factory refused the arguments.
  case processorFailed(spec: String, column: Int, processor: String, message: String)

  public var column: Int {
    switch self {
    case .syntax(_, let column, _), .unknownProcessor(_, let column, _, _),
      .invalidArgument(_, let column, _, _), .processorFailed(_, let column, _, _):
      column
    }
  }

  public var spec: String {
    switch self {
    case .syntax(let spec, _, _), .unknownProcessor(let spec, _, _, _),
      .invalidArgument(let spec, _, _, _), .processorFailed(let spec, _, _, _):
      spec
    }
  }

  /// The message alone, without the spec and caret.
  public var message: String {
    switch self {
    case .syntax(_, _, let message): message
    case .unknownProcessor(_, _, let name, let suggestions):
      "unknown processor '\(name)'"
        + (suggestions.isEmpty
          ? "; see 'imgtool processors'"
          : "; did you mean " + suggestions.map { "'\($0)'" }.joined(separator: " or ") + "?")
    case .invalidArgument(_, _, let processor, let message): "\(processor): \(message)"
    case .processorFailed(_, _, let processor, let message): "\(processor): \(message)"
    }
  }

  /// The spec, a caret under the column, and the message.
  public var description: String {
    "column \(column): \(message)\n  \(spec)\n  "
      + String(repeating: " ", count: max(0, column - 1)) + "^"
  }
}

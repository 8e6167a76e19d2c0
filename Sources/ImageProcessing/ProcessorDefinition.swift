/// How a processor is registered: its name, version, documentation, parameters, and
/// how to make one from checked arguments.
public struct ProcessorDefinition: Sendable {
  /// The name specs use: letters, digits and `_`, starting with a letter.
  public var name: String
  /// Raise it whenever the processor's output changes: every table whose pipeline
  /// names the processor is invalidated (reported) and re-rendered, whatever the
  /// processor's `identifier` says (the fingerprint records the name, this version and
  /// the arguments; see ``Pipeline/identifiers``).
  public var version: Int
  /// One line for `imgtool processors`.
  public var summary: String
  public var parameters: [ProcessorParameter]
  /// Makes the processor; may throw to refuse a combination of arguments.
  public var make: @Sendable (ProcessorArguments) throws -> any ImageProcessor

  public init(
    name: String, version: Int = 1, summary: String, parameters: [ProcessorParameter] = [],
    make: @escaping @Sendable (ProcessorArguments) throws -> any ImageProcessor
  ) {
    self.name = name
    self.version = version
    self.summary = summary
    self.parameters = parameters
    self.make = make
  }

  /// `name(parameter: kind = default, ...)`, for listings.
  public var signature: String {
    guard !parameters.isEmpty else { return name }
    let list = parameters.map { parameter in
      "\(parameter.name): \(parameter.kind.signature)"
        + (parameter.defaultValue.map { " = \($0)" } ?? "")
    }
    return "\(name)(\(list.joined(separator: ", ")))"
  }
}

import ImageProcessing

/// The host's checked arguments (text, one per parameter) back in the values a
/// ``ProcessorDefinition`` takes.
enum HostArguments {
  /// Why the host's arguments do not fit the definition (a host of another version).
  struct Mismatch: Error, CustomStringConvertible {
    let description: String
  }

  /// The arguments in the order the definition declares its parameters; a parameter
  /// the host did not give takes its default.
  static func arguments(_ texts: [(String, String)], of definition: ProcessorDefinition)
    throws(Mismatch) -> ProcessorArguments
  {
    var values: [(String, ArgumentValue)] = []
    for parameter in definition.parameters {
      guard let text = texts.first(where: { $0.0 == parameter.name })?.1 else {
        guard let fallback = parameter.defaultValue else {
          throw Mismatch(description: "\(definition.name): the host gave no '\(parameter.name)'")
        }
        values.append((parameter.name, fallback))
        continue
      }
      guard let value = value(text, kind: parameter.kind) else {
        throw Mismatch(
          description:
            "\(definition.name): '\(text)' is not \(parameter.kind) for '\(parameter.name)'")
      }
      values.append((parameter.name, value))
    }
    return ProcessorArguments(
      processorName: definition.name, version: definition.version, values: values)
  }

  /// `text` as the interface writes a value of `kind`: numbers in decimal, colours as
  /// `#rrggbbaa`, strings and words as themselves, booleans as `true` or `false`.
  static func value(_ text: String, kind: ProcessorParameter.Kind) -> ArgumentValue? {
    switch kind {
    case .number, .integer: Double(text).map { .number($0) }
    case .color: ArgumentValue.parseColor(text).map { .color($0) }
    case .string: .string(text)
    case .choice, .boolean: .word(text)
    }
  }
}

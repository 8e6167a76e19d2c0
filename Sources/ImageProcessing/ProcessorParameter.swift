/// One named parameter a processor accepts, with its kind, default and documentation.
public struct ProcessorParameter: Sendable {
  public enum Kind: Sendable, Equatable, CustomStringConvertible {
    /// A number within a range.
    case number(ClosedRange<Double>)
    /// A whole number within a range.
    case integer(ClosedRange<Int>)
    case string
    /// `#rgb`, `#rrggbb` or `#rrggbbaa`; a string holding one is accepted too.
    case color
    /// One of a few bare words.
    case choice([String])
    /// `true` or `false`.
    case boolean

    /// In words, for messages: "a number from 0 to 10".
    public var description: String {
      switch self {
      case .number(let range):
        "a number from \(format(range.lowerBound)) to \(format(range.upperBound))"
      case .integer(let range): "a whole number from \(range.lowerBound) to \(range.upperBound)"
      case .string: "a string"
      case .color: "a colour (#rgb, #rrggbb or #rrggbbaa)"
      case .choice(let words): "one of " + words.joined(separator: " | ")
      case .boolean: "true or false"
      }
    }

    /// Compact, for signatures: "number 0...10", "centre | attention".
    public var signature: String {
      switch self {
      case .number(let range): "number \(format(range.lowerBound))...\(format(range.upperBound))"
      case .integer(let range): "integer \(range.lowerBound)...\(range.upperBound)"
      case .string: "string"
      case .color: "colour"
      case .choice(let words): words.joined(separator: " | ")
      case .boolean: "true | false"
      }
    }

    private func format(_ value: Double) -> String { ArgumentValue.number(value).description }
  }

  public var name: String
  public var kind: Kind
  /// The value when the spec leaves it out; nil makes the parameter required.
  public var defaultValue: ArgumentValue?
  public var summary: String

  public init(
    _ name: String, _ kind: Kind, default defaultValue: ArgumentValue? = nil, _ summary: String
  ) {
    self.name = name
    self.kind = kind
    self.defaultValue = defaultValue
    self.summary = summary
  }

  /// The value in this parameter's kind, or why it is not one.
  func accept(_ value: ArgumentValue) -> Result<ArgumentValue, ArgumentProblem> {
    switch (kind, value) {
    case (.number(let range), .number(let number)):
      return range.contains(number)
        ? .success(value) : .failure(.init("\(name) must be \(kind), not \(value)"))
    case (.integer(let range), .number(let number)):
      guard number == number.rounded(), range.contains(Int(exactly: number) ?? Int.min) else {
        return .failure(.init("\(name) must be \(kind), not \(value)"))
      }
      return .success(value)
    case (.string, .string), (.string, .word):
      if case .word(let word) = value { return .success(.string(word)) }
      return .success(value)
    case (.color, .color):
      return .success(value)
    case (.color, .string(let text)):
      guard let color = ArgumentValue.parseColor(text) else {
        return .failure(.init("\(name) must be \(kind), not \(value)"))
      }
      return .success(.color(color))
    case (.choice(let words), .word(let word)), (.choice(let words), .string(let word)):
      return words.contains(word)
        ? .success(.word(word)) : .failure(.init("\(name) must be \(kind), not \(word)"))
    case (.boolean, .word(let word)) where word == "true" || word == "false":
      return .success(value)
    default:
      return .failure(.init("\(name) must be \(kind), not \(value.kindName) (\(value))"))
    }
  }
}

/// Why an argument does not fit its parameter.
struct ArgumentProblem: Error {
  let message: String
  init(_ message: String) { self.message = message }
}

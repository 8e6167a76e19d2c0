import ImageTables

/// The checked arguments of one processor, every parameter present (defaults filled in).
public struct ProcessorArguments: Sendable, Equatable {
  public let processorName: String
  public let version: Int
  /// Values in the order the processor declares its parameters.
  public let values: [(String, ArgumentValue)]

  public init(processorName: String, version: Int, values: [(String, ArgumentValue)]) {
    self.processorName = processorName
    self.version = version
    self.values = values
  }

  /// `name@version(parameter: value, ...)`: what the processor is, as stable text that
  /// parses back to the same processor.
  public var identifier: String {
    let head = "\(processorName)@\(version)"
    guard !values.isEmpty else { return head }
    return head + "(" + values.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + ")"
  }

  public subscript(_ name: String) -> ArgumentValue? {
    values.first { $0.0 == name }?.1
  }

  public func number(_ name: String) -> Double {
    if case .number(let value) = self[name] { return value }
    preconditionFailure("\(processorName) has no number parameter '\(name)'")
  }

  public func integer(_ name: String) -> Int { Int(number(name)) }

  public func string(_ name: String) -> String {
    if case .string(let value) = self[name] { return value }
    preconditionFailure("\(processorName) has no string parameter '\(name)'")
  }

  public func color(_ name: String) -> RGBA {
    if case .color(let value) = self[name] { return value }
    preconditionFailure("\(processorName) has no colour parameter '\(name)'")
  }

  public func word(_ name: String) -> String {
    if case .word(let value) = self[name] { return value }
    preconditionFailure("\(processorName) has no choice parameter '\(name)'")
  }

  public func bool(_ name: String) -> Bool { word(name) == "true" }

  public static func == (left: ProcessorArguments, right: ProcessorArguments) -> Bool {
    left.identifier == right.identifier
  }
}

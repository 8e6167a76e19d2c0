/// A command line parsed against a ``CommandSpec``.
public struct ParsedArguments: Sendable, Equatable {
  public var flags: Set<String> = []
  public var values: [String: [String]] = [:]
  public var positionals: [String] = []

  /// Whether the flag `--name` was given.
  public func flag(_ name: String) -> Bool { flags.contains(name) }
  /// The last value of `--name`, if given.
  public func value(_ name: String) -> String? { values[name]?.last }
  /// Every value of `--name`, in order.
  public func allValues(_ name: String) -> [String] { values[name] ?? [] }

  /// The value of `--name` as a whole number within `range`, or `default`.
  public func integer(_ name: String, in range: ClosedRange<Int>, default fallback: Int)
    throws(CommandLineError) -> Int
  {
    guard let text = value(name) else { return fallback }
    guard let number = Int(text), range.contains(number) else {
      throw .invalidValue(
        option: "--\(name)", value: text,
        reason: "expected a whole number from \(range.lowerBound) to \(range.upperBound)")
    }
    return number
  }
}

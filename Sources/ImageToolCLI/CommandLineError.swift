/// A command line that cannot be run as written; shown with the command's usage.
public enum CommandLineError: Error, Equatable, CustomStringConvertible {
  case unknownCommand(String, suggestion: String?)
  case missingCommand
  case unknownOption(String, suggestion: String?)
  case missingValue(option: String, valueName: String)
  case missingOption(option: String, valueName: String)
  case conflictingOptions(String, String)
  /// Neither of two options that stand for each other was given.
  case missingOneOf(String, String)
  case unexpectedValue(option: String)
  case missingArgument(name: String)
  case unexpectedArgument(String)
  case invalidValue(option: String, value: String, reason: String)

  public var description: String {
    switch self {
    case .unknownCommand(let name, let suggestion):
      "unknown subcommand '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
    case .missingCommand:
      "missing subcommand"
    case .unknownOption(let name, let suggestion):
      "unknown option '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
    case .missingValue(let option, let valueName):
      "missing value for '\(option) <\(valueName)>'"
    case .missingOption(let option, let valueName):
      "missing required option '\(option) <\(valueName)>'"
    case .conflictingOptions(let first, let second):
      "'\(first)' and '\(second)' cannot be given together; give one"
    case .missingOneOf(let first, let second):
      "missing required option: give '\(first)' or '\(second)'"
    case .unexpectedValue(let option):
      "the flag '\(option)' takes no value"
    case .missingArgument(let name):
      "missing expected argument '<\(name)>'"
    case .unexpectedArgument(let argument):
      "unexpected argument '\(argument)'"
    case .invalidValue(let option, let value, let reason):
      "invalid value '\(value)' for '\(option)': \(reason)"
    }
  }
}

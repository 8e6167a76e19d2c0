import ImageProcessing

/// Parses arguments the way swift-argument-parser users expect: `--name value`,
/// `--name=value`, `-h`, flags anywhere, and `--` before arguments that start with `-`.
public enum ArgumentParser {
  public static func parse(_ arguments: [String], for spec: CommandSpec)
    throws(CommandLineError) -> ParsedArguments
  {
    var parsed = ParsedArguments()
    var index = 0
    var onlyPositionals = false
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
        parsed.positionals.append(argument)
        continue
      }
      if argument == "--" {
        onlyPositionals = true
        continue
      }
      let (option, inlineValue) = try lookUp(argument, in: spec)
      if option.isFlag {
        guard inlineValue == nil else { throw .unexpectedValue(option: "--\(option.name)") }
        parsed.flags.insert(option.name)
        continue
      }
      let value: String
      if let inlineValue {
        value = inlineValue
      } else if index < arguments.count, !arguments[index].hasPrefix("--") {
        value = arguments[index]
        index += 1
      } else {
        throw .missingValue(option: "--\(option.name)", valueName: option.valueName ?? "value")
      }
      if option.repeats {
        parsed.values[option.name, default: []].append(value)
      } else {
        parsed.values[option.name] = [value]
      }
    }
    if parsed.flag("help") { return parsed }
    for option in spec.options where option.required && parsed.values[option.name] == nil {
      throw .missingOption(option: "--\(option.name)", valueName: option.valueName ?? "value")
    }
    try checkPositionals(parsed.positionals, for: spec)
    return parsed
  }

  private static func lookUp(_ argument: String, in spec: CommandSpec)
    throws(CommandLineError) -> (CommandSpec.Option, String?)
  {
    if argument.hasPrefix("--") {
      let body = argument.dropFirst(2)
      let name = String(body.prefix { $0 != "=" })
      let value = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
      guard let option = spec.options.first(where: { $0.name == name }) else {
        let suggestion = Suggestion.closest(to: name, among: spec.options.map(\.name))
        throw .unknownOption(argument, suggestion: suggestion.map { "--\($0)" })
      }
      return (option, value)
    }
    let short = argument.dropFirst()
    guard short.count == 1, let option = spec.options.first(where: { $0.short == short.first })
    else {
      throw .unknownOption(argument, suggestion: nil)
    }
    return (option, nil)
  }

  private static func checkPositionals(_ positionals: [String], for spec: CommandSpec)
    throws(CommandLineError)
  {
    var remaining = positionals[...]
    for argument in spec.arguments {
      if remaining.isEmpty {
        if argument.optional { continue }
        throw .missingArgument(name: argument.name)
      }
      remaining = argument.repeats ? [] : remaining.dropFirst()
    }
    if let extra = remaining.first { throw .unexpectedArgument(extra) }
  }
}

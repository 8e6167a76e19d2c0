/// Writes `--help` text in the layout swift-argument-parser users know.
enum HelpFormatter {
  static let column = 26

  static func usage(of spec: CommandSpec, toolName: String = "imgtool") -> String {
    var parts = ["\(toolName) \(spec.name)"]
    for option in spec.options where option.name != "help" {
      let text = option.isFlag ? "--\(option.name)" : "--\(option.name) <\(option.valueName!)>"
      if option.required {
        parts.append(option.repeats ? "\(text) ..." : text)
      } else {
        parts.append(option.repeats ? "[\(text) ...]" : "[\(text)]")
      }
    }
    for argument in spec.arguments {
      let text = "<\(argument.name)>" + (argument.repeats ? " ..." : "")
      parts.append(argument.optional ? "[\(text)]" : text)
    }
    return parts.joined(separator: " ")
  }

  static func help(for spec: CommandSpec, toolName: String = "imgtool") -> String {
    var lines = ["OVERVIEW: \(spec.abstract)"]
    if !spec.discussion.isEmpty { lines += [""] + wrap(spec.discussion, width: 80, indent: "") }
    lines += ["", "USAGE: \(usage(of: spec, toolName: toolName))"]
    if !spec.arguments.isEmpty {
      lines += ["", "ARGUMENTS:"]
      for argument in spec.arguments {
        lines.append(row("<\(argument.name)>" + (argument.repeats ? " ..." : ""), argument.help))
      }
    }
    lines += ["", "OPTIONS:"]
    for option in spec.options {
      var names = option.short.map { "-\($0), " } ?? ""
      names += "--\(option.name)" + (option.valueName.map { " <\($0)>" } ?? "")
      lines.append(row(names, option.required ? "(required) " + option.help : option.help))
    }
    return lines.joined(separator: "\n")
  }

  /// `left` in the first column and `right` wrapped beside it.
  static func row(_ left: String, _ right: String) -> String {
    let label = "  " + left
    let indent = String(repeating: " ", count: column)
    var body = wrap(right, width: 80 - column, indent: "")
    if label.count + 2 > column {
      return ([label] + body.map { indent + $0 }).joined(separator: "\n")
    }
    body[0] = label + String(repeating: " ", count: column - label.count) + body[0]
    return ([body[0]] + body.dropFirst().map { indent + $0 }).joined(separator: "\n")
  }

  /// `text` broken into lines of at most `width` characters, at spaces.
  static func wrap(_ text: String, width: Int, indent: String) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: true) {
      if !line.isEmpty, line.count + 1 + word.count > width {
        lines.append(indent + line)
        line = ""
      }
      line += (line.isEmpty ? "" : " ") + word
    }
    lines.append(indent + line)
    return lines
  }
}

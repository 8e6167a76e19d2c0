/// A pipeline spec parsed but not yet built: processors by name, with their arguments
/// and the columns they were written at.
///
/// Grammar (one line):
///
/// ```
/// pipeline  := call ("|" call)*
/// call      := name ("@" version)? ("(" (argument ("," argument)*)? ")")?
/// argument  := name ":" value
/// value     := number | "string" | #colour | word
/// ```
///
/// Numbers are decimal (`2`, `-0.5`); strings are in double quotes with `\"` and `\\`;
/// colours are `#rgb`, `#rrggbb` or `#rrggbbaa`; words are bare (`attention`, `true`).
public struct PipelineSpec: Sendable, Equatable {
  public struct Call: Sendable, Equatable {
    public var name: String
    public var version: Int?
    public var arguments: [Argument]
    public var column: Int
  }

  public struct Argument: Sendable, Equatable {
    public var name: String
    public var value: ArgumentValue
    public var column: Int
    public var valueColumn: Int
  }

  public var text: String
  public var calls: [Call]

  /// Parses `text`; the error gives the column and what was expected there.
  public init(parsing text: String) throws(PipelineError) {
    var parser = Parser(text: text)
    self.text = text
    calls = try parser.pipeline()
  }
}

/// A recursive-descent parser over the characters of one spec.
private struct Parser {
  let text: String
  let characters: [Character]
  var index = 0

  init(text: String) {
    self.text = text
    characters = Array(text)
  }

  var column: Int { index + 1 }

  mutating func pipeline() throws(PipelineError) -> [PipelineSpec.Call] {
    skipSpaces()
    guard index < characters.count else {
      throw fail("the pipeline is empty; expected a processor name such as 'fill' or 'fit'")
    }
    var calls = [try call()]
    while true {
      skipSpaces()
      guard index < characters.count else { return calls }
      guard characters[index] == "|" else {
        throw fail("expected '|' between processors or the end, found '\(characters[index])'")
      }
      index += 1
      skipSpaces()
      guard index < characters.count else { throw fail("expected a processor name after '|'") }
      calls.append(try call())
    }
  }

  private mutating func call() throws(PipelineError) -> PipelineSpec.Call {
    let start = column
    let name = try identifier(what: "a processor name")
    var version: Int? = nil
    if peek("@") {
      index += 1
      let digitsStart = index
      while index < characters.count, characters[index].isASCII, characters[index].isNumber {
        index += 1
      }
      guard index > digitsStart, let number = Int(String(characters[digitsStart..<index])) else {
        throw fail("expected a version number after '@'")
      }
      version = number
    }
    skipSpaces()
    var arguments: [PipelineSpec.Argument] = []
    if peek("(") {
      index += 1
      skipSpaces()
      if peek(")") {
        index += 1
      } else {
        while true {
          arguments.append(try argument())
          skipSpaces()
          if peek(",") {
            index += 1
            skipSpaces()
            continue
          }
          if peek(")") {
            index += 1
            break
          }
          throw fail(
            index < characters.count
              ? "expected ',' or ')' after an argument, found '\(characters[index])'"
              : "expected ')' to close the arguments of '\(name)'")
        }
      }
    }
    return PipelineSpec.Call(name: name, version: version, arguments: arguments, column: start)
  }

  private mutating func argument() throws(PipelineError) -> PipelineSpec.Argument {
    let start = column
    let name = try identifier(what: "an argument name (name: value)")
    skipSpaces()
    guard peek(":") else { throw fail("expected ':' after the argument name '\(name)'") }
    index += 1
    skipSpaces()
    let valueStart = column
    return PipelineSpec.Argument(
      name: name, value: try value(), column: start, valueColumn: valueStart)
  }

  private mutating func value() throws(PipelineError) -> ArgumentValue {
    guard index < characters.count else { throw fail("expected a value") }
    let character = characters[index]
    if character == "\"" { return .string(try string()) }
    if character == "#" {
      let start = index
      index += 1
      while index < characters.count,
        characters[index].isHexDigit || characters[index].isLetter
          || characters[index].isNumber
      {
        index += 1
      }
      let text = String(characters[start..<index])
      guard let color = ArgumentValue.parseColor(text) else {
        index = start
        throw fail("'\(text)' is not a colour; expected #rgb, #rrggbb or #rrggbbaa")
      }
      return .color(color)
    }
    if character.isNumber || character == "-" || character == "+" || character == "." {
      let start = index
      index += 1
      while index < characters.count,
        characters[index].isNumber || characters[index] == "." || characters[index] == "e"
          || characters[index] == "E"
          || ((characters[index] == "-" || characters[index] == "+")
            && (characters[index - 1] == "e" || characters[index - 1] == "E"))
      {
        index += 1
      }
      let text = String(characters[start..<index])
      guard let number = Double(text), number.isFinite else {
        index = start
        throw fail("'\(text)' is not a number")
      }
      return .number(number)
    }
    if character.isLetter || character == "_" {
      return .word(try identifier(what: "a value", allowDots: true))
    }
    throw fail("expected a value (a number, \"string\", #colour or word), found '\(character)'")
  }

  private mutating func string() throws(PipelineError) -> String {
    let start = index
    index += 1
    var result = ""
    while index < characters.count {
      let character = characters[index]
      index += 1
      if character == "\"" { return result }
      if character == "\\" {
        guard index < characters.count else { break }
        result.append(characters[index])
        index += 1
      } else {
        result.append(character)
      }
    }
    index = start
    throw fail("this string is not closed; expected a '\"' before the end")
  }

  private mutating func identifier(what: String, allowDots: Bool = false) throws(PipelineError)
    -> String
  {
    let start = index
    if index < characters.count, characters[index].isASCII,
      characters[index].isLetter || characters[index] == "_"
    {
      index += 1
      while index < characters.count, characters[index].isASCII,
        characters[index].isLetter || characters[index].isNumber || characters[index] == "_"
          || (allowDots && (characters[index] == "." || characters[index] == "-"))
      {
        index += 1
      }
    }
    guard index > start else {
      if index < characters.count {
        throw fail("expected \(what), found '\(characters[index])'")
      }
      throw fail("expected \(what)")
    }
    return String(characters[start..<index])
  }

  private func peek(_ character: Character) -> Bool {
    index < characters.count && characters[index] == character
  }

  private mutating func skipSpaces() {
    while index < characters.count, characters[index] == " " || characters[index] == "\t" {
      index += 1
    }
  }

  private func fail(_ message: String) -> PipelineError {
    .syntax(spec: text, column: column, message: message)
  }
}

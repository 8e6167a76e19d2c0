import ImageToolManifest
import Testing

@testable import ImageToolCLI

@Suite("Argument parser")
struct ArgumentParserTests {
  let spec = CommandSpec(
    name: "demo", abstract: "A demo.",
    options: [
      .init("json", help: "JSON."), .init("cache", value: "dir", help: "Cache."),
      .init("plugin", value: "path", help: "Plugin.", repeats: true),
    ],
    arguments: [.init("file", help: "Files.", repeats: true)])

  @Test func optionsFlagsAndPositionalsInAnyOrder() throws {
    let parsed = try ArgumentParser.parse(
      ["a.jpg", "--cache", "/tmp/c", "--json", "b.jpg", "--plugin=x.so", "--plugin", "y.so"],
      for: spec)
    #expect(parsed.positionals == ["a.jpg", "b.jpg"])
    #expect(parsed.flag("json"))
    #expect(parsed.value("cache") == "/tmp/c")
    #expect(parsed.allValues("plugin") == ["x.so", "y.so"])
  }

  @Test func doubleDashEndsOptions() throws {
    let parsed = try ArgumentParser.parse(["--", "--json", "-h"], for: spec)
    #expect(parsed.positionals == ["--json", "-h"])
    #expect(!parsed.flag("json"))
  }

  @Test func helpNeedsNoArguments() throws {
    #expect(try ArgumentParser.parse(["-h"], for: spec).flag("help"))
    #expect(try ArgumentParser.parse(["--help"], for: spec).flag("help"))
  }

  @Test func errorsSayWhatIsWrong() {
    #expect(throws: CommandLineError.unknownOption("--jsn", suggestion: "--json")) {
      try ArgumentParser.parse(["--jsn", "a"], for: spec)
    }
    #expect(throws: CommandLineError.missingValue(option: "--cache", valueName: "dir")) {
      try ArgumentParser.parse(["a", "--cache"], for: spec)
    }
    #expect(throws: CommandLineError.unexpectedValue(option: "--json")) {
      try ArgumentParser.parse(["--json=yes", "a"], for: spec)
    }
    #expect(throws: CommandLineError.missingArgument(name: "file")) {
      try ArgumentParser.parse(["--json"], for: spec)
    }
    #expect(throws: CommandLineError.unknownOption("-x", suggestion: nil)) {
      try ArgumentParser.parse(["-x"], for: spec)
    }
  }

  @Test func tooManyArgumentsAreRefused() {
    let single = CommandSpec(name: "one", abstract: "", arguments: [.init("file", help: "")])
    #expect(throws: CommandLineError.unexpectedArgument("b")) {
      try ArgumentParser.parse(["a", "b"], for: single)
    }
  }

  @Test func integersAreChecked() throws {
    let parsed = try ArgumentParser.parse(["--cache", "12x", "a"], for: spec)
    #expect(throws: CommandLineError.self) {
      try parsed.integer("cache", in: 1...100, default: 5)
    }
    #expect(try parsed.integer("missing", in: 1...100, default: 5) == 5)
  }

  @Test func helpListsEveryOptionAndArgument() {
    let help = HelpFormatter.help(for: spec)
    #expect(
      help.contains("USAGE: imgtool demo [--json] [--cache <dir>] [--plugin <path> ...] <file> ...")
    )
    #expect(help.contains("  --cache <dir>           Cache."))
    #expect(help.contains("  -h, --help              Show help information."))
    #expect(help.split(separator: "\n").allSatisfy { $0.count <= 80 || $0.hasPrefix("USAGE") })
  }

  @Test func jsonKeepsKeyOrderAndEscapes() {
    let value: JSONValue = .object([("b", 1), ("a", "x\"y\n"), ("c", .array([true, .null]))])
    #expect(value.text == #"{"b":1,"a":"x\"y\n","c":[true,null]}"#)
  }
}

import Foundation
import TestFixtures
import Testing

@testable import ImageToolCLI

/// `--decode-timeout SECONDS` on the commands that decode: `render`, `apply`, `info`.
@Suite("--decode-timeout")
struct DecodeTimeoutCommandTests {
  static let svgz = Fixtures.folder.appendingPathComponent("bad/gzip-then-bytes.svgz").path

  @Test(
    "a limit that is not a positive number of seconds is a usage error naming it",
    arguments: [
      ("0", "expected more than 0 and at most 86400 seconds (one day)"),
      ("-1", "expected more than 0 and at most 86400 seconds (one day)"),
      ("100000", "expected more than 0 and at most 86400 seconds (one day)"),
      ("abc", "expected a number of seconds, like 30 or 0.5"),
      ("nan", "expected a number of seconds, like 30 or 0.5"),
    ])
  func badLimits(value: String, reason: String) async throws {
    let photo = Paths.bundled("coffee.png")
    let out = try Fixtures.temporaryFolder().appendingPathComponent("out.png").path
    let cache = try Fixtures.temporaryFolder().path
    for command in [
      ["render", "--family", "avatar", "--cache", cache, "--decode-timeout", value, photo],
      ["apply", "--pipeline", "fill", "--size", "8x8", "--decode-timeout", value, photo, out],
      ["info", "--decode-timeout", value, photo],
    ] {
      let result = await runTool(command)
      #expect(result.status == 64, "\(command)")
      #expect(
        result.err.first == "imgtool: invalid value '\(value)' for '--decode-timeout': \(reason)",
        "\(command)")
    }
  }

  @Test("a fraction of a second is a limit, and the help of each command explains it")
  func limitsAndHelp() async throws {
    #expect(
      try DecodeTimeoutOption.limit(ParsedArguments(values: ["decode-timeout": ["0.5"]]))
        == .milliseconds(500))
    #expect(try DecodeTimeoutOption.limit(ParsedArguments()) == .seconds(30))
    for command in ["render", "apply", "info"] {
      let help = await runTool(["help", command]).out.joined(separator: " ")
      #expect(help.contains("--decode-timeout <seconds>"), "\(command)")
      #expect(help.contains("default 30"), "\(command)")
    }
  }

  @Test("info names an SVGZ that hangs libvips's sniff at once, and goes on to the next file")
  func infoAnswersForTheHangingSVGZ() async throws {
    let start = ContinuousClock.now
    let result = await runTool([
      "info", "--decode-timeout", "5", Self.svgz, Paths.bundled("coffee.png"),
    ])
    #expect(ContinuousClock.now - start < .seconds(60))
    #expect(result.status == 1)
    #expect(
      result.err == [
        "imgtool: \(Self.svgz): it is gzip-compressed data (an SVGZ drawing, or another "
          + "compressed file), which only libvips's loader 'svgload' reads, and that loader is "
          + "blocked for untrusted input: its parser was never hardened (fuzzed) against "
          + "hostile files, and photos never need it"
      ])
    #expect(
      result.out.count == 1 && result.out[0].hasPrefix(Paths.bundled("coffee.png") + ": 600x400"))
  }
}

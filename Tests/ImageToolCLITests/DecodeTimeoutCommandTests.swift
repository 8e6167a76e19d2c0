import Foundation
import TestFixtures
import Testing
import Vips

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

  /// The limit given reaches the decode: a blur over a 5000x5000 PNG (no shrink-on-load;
  /// seconds of work) is stopped at 1 s by `apply`, and by `render`, whose own `--timeout`
  /// (the download's) is another option.
  @Test("the limit given stops apply's and render's work on a slow photo, and says so")
  func theLimitGivenStopsTheWork() async throws {
    let folder = try Fixtures.temporaryFolder()
    let big = folder.appendingPathComponent("big.png").path
    let side = 5000
    try VipsImage(
      pixels: [UInt8](repeating: 120, count: side * side * 3), width: side, height: side,
      bands: 3
    ).write(to: big)
    let out = folder.appendingPathComponent("out.png").path
    let apply = await runTool([
      "apply", "--pipeline", "blur(sigma: 2) | fill", "--size", "64x64", "--decode-timeout", "1",
      big, out,
    ])
    #expect(apply.status == 1)
    #expect(
      apply.err.count == 1
        && apply.err.first?.hasPrefix("imgtool: \(big): took longer than 1 s") == true,
      "\(apply.err)")
    #expect(!FileManager.default.fileExists(atPath: out))
    let manifest = folder.appendingPathComponent("imgtool.json").path
    try
      #"{"formats": [{"name": "soft.thumb", "family": "soft", "size": "64x64", "pipeline": "blur(sigma: 2) | fill"}]}"#
      .write(toFile: manifest, atomically: true, encoding: .utf8)
    // Only the slow photo: the limit is wall time, and a good photo beside it was once
    // stopped at 1 s too, in a full test run on a loaded machine.
    let render = await runTool([
      "render", "--manifest", manifest, "--family", "soft", "--cache",
      folder.appendingPathComponent("cache").path, "--timeout", "60", "--decode-timeout", "1",
      "--quiet", big,
    ])
    #expect(render.status == 1)
    #expect(
      render.out.first?.hasPrefix(
        "render: family soft: 1 photo: 0 rendered, 0 up to date, 1 failed") == true,
      "\(render.out)")
    #expect(
      render.out.filter { $0.hasPrefix("  failed: \(big): took longer than 1 s") }.count == 1,
      "\(render.out)")
  }

  /// `blur(sigma: 20)` over a 5000x5000 PNG for a 64x64 entry: one strip of the entry needs
  /// the whole blur (minutes here), so the limit must reach inside it; it once took 242 s
  /// to stop at a 1 s limit.
  @Test("a heavy pipeline is stopped at its limit, not at the end of its first strip")
  func aHeavyPipelineStopsAtItsLimit() async throws {
    let folder = try Fixtures.temporaryFolder()
    let big = folder.appendingPathComponent("big.png").path
    let side = 5000
    try VipsImage(
      pixels: [UInt8](repeating: 120, count: side * side * 3), width: side, height: side,
      bands: 3
    ).write(to: big)
    let out = folder.appendingPathComponent("out.png").path
    let start = ContinuousClock.now
    let apply = await runTool([
      "apply", "--pipeline", "blur(sigma: 20) | fill", "--size", "64x64", "--decode-timeout",
      "1", big, out,
    ])
    // A guard against waiting for the whole blur, not a timing.
    #expect(ContinuousClock.now - start < .seconds(60))
    #expect(apply.status == 1)
    #expect(
      apply.err == [
        "imgtool: \(big): took longer than 1 s to decode and process (the time limit of one "
          + "image); stopped"
      ])
    #expect(!FileManager.default.fileExists(atPath: out))
  }
}

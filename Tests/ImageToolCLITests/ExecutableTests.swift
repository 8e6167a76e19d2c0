import Foundation
import TestFixtures
import Testing

/// `imgtool` run as a user runs it: its own process, real exit statuses, and
/// nothing on standard error but our own lines (libvips's warnings are captured).
@Suite("imgtool executable")
struct ExecutableTests {
  @Test func versionAndHelp() throws {
    let version = try runExecutable(["--version"])
    #expect(version.status == 0)
    #expect(version.out == "imgtool 0.1.0\n")
    let help = try runExecutable(["--help"])
    #expect(help.status == 0 && help.out.contains("SUBCOMMANDS:") && help.out.contains("info"))
    let infoHelp = try runExecutable(["help", "info"])
    #expect(infoHelp.status == 0 && infoHelp.out.contains("USAGE: imgtool info"))
    #expect(try runExecutable(["info", "--help"]).out == infoHelp.out)
  }

  @Test func usageErrorsExit64WithUsage() throws {
    let result = try runExecutable(["inf", "x.jpg"])
    #expect(result.status == 64)
    #expect(
      result.err.hasPrefix("imgtool: unknown subcommand 'inf'; did you mean 'info'?\nUsage:"))
    #expect(try runExecutable([]).status == 64)
  }

  @Test func infoOnTheBundledPhotos() throws {
    let photos = ["astronaut.png", "chelsea.png", "coffee.png", "hubble.jpg", "rocket.jpg"]
    let result = try runExecutable(["info"] + photos.map(Paths.bundled))
    #expect(result.status == 0)
    #expect(result.err.isEmpty)
    #expect(result.out.split(separator: "\n").count == photos.count)
  }

  @Test func truncatedFileGetsOneLineAndNoWarnings() throws {
    let folder = try Paths.temporaryFolder()
    let bytes = try Data(contentsOf: URL(fileURLWithPath: Paths.bundled("hubble.jpg")))
    let truncated = folder.appendingPathComponent("cut.jpg")
    try bytes.prefix(bytes.count / 2).write(to: truncated)
    let result = try runExecutable(["info", truncated.path, Paths.bundled("rocket.jpg")])
    #expect(result.status == 1)
    #expect(result.out.split(separator: "\n").count == 1)
    let errors = result.err.split(separator: "\n")
    #expect(errors.count == 1, "standard error: \(result.err)")
    #expect(
      errors.first?.hasPrefix("imgtool: \(truncated.path): the image data ends early") == true)
  }

  @Test("every bad fixture: one specific line, no crash")
  func badFixtures() throws {
    let paths = try Fixture.badInputs.map { try $0.path() }
    let result = try runExecutable(["info"] + paths)
    #expect(result.status == 1)
    #expect(result.out.isEmpty)
    let errors = result.err.split(separator: "\n").map(String.init)
    #expect(errors.count == paths.count, "standard error: \(result.err)")
    let expected = [
      "bomb-header-100000x100000.png": "refused before decoding",
      "gzip-then-bytes.svgz": "blocked for untrusted input",
      "progressive-8000x8000-cut.jpg": "refused before decoding as a likely decompression bomb",
      "random-bytes.png": "not an image", "text.jpg": "not an image",
      "truncated.jpg": "ends early (truncated)", "zero-bytes.jpg": "the file is empty",
    ]
    let tiffs = Dictionary(uniqueKeysWithValues: BadTIFF.all.map { ($0.name, $0) })
    let heifs = BadHEIF.all.map(\.name)
    #expect(
      Set(expected.keys).union(tiffs.keys).union(heifs) == Set(Fixture.badInputs.map(\.name)))
    for (name, words) in expected {
      #expect(errors.contains { $0.contains(name) && $0.contains(words) }, "\(name): \(words)")
    }
    for tiff in BadTIFF.all {
      let head = "imgtool: \(tiff.path): "
      #expect(
        errors.contains { $0.hasPrefix(head) && tiff.isReason(String($0.dropFirst(head.count))) },
        "\(tiff): \(result.err)")
    }
    for heif in BadHEIF.all {
      let head = "imgtool: \(heif.path): "
      #expect(
        errors.contains { $0.hasPrefix(head) && heif.isReason(String($0.dropFirst(head.count))) },
        "\(heif): \(result.err)")
    }
  }

  /// libvips keeps one error buffer per process: rendered side by side, a truncated
  /// photo's message took in another file's failed probe ("buffer is not in a known
  /// format") in 7 runs of 10. Each failure is tried again alone: every run gives each
  /// file its own message, in the order given.
  @Test func badFixturesRenderedSideBySideEachGetTheirOwnMessage() throws {
    let folder = try Paths.temporaryFolder()
    let photos = folder.appendingPathComponent("bad")
    try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
    for fixture in Fixture.badInputs {
      try FileManager.default.copyItem(
        atPath: try fixture.path(), toPath: photos.appendingPathComponent(fixture.name).path)
    }
    let tiffs = BadTIFF.all.filter { $0.libvipsLines == nil }.sorted { $0.name < $1.name }
    let lines =
      [
        "bomb-header-100000x100000.png: too large: 100000x100000 has a side longer than the "
          + "limit of 65535 pixels; refused before decoding",
        "progressive-8000x8000-cut.jpg: \(DecodeMemoryCommandTests.bombReason)",
        "random-bytes.png: not an image: no loader recognises its contents",
        "text.jpg: not an image: no loader recognises its contents",
      ] + tiffs.map { "\($0.name): \($0.reason)" }
      + [
        "truncated.jpg: the image data ends early (truncated) (libvips: VipsJpeg: Premature "
          + "end of input file)",
        "zero-bytes.jpg: the file is empty (0 bytes)",
      ]
    let expected = lines.map { "  failed: \(photos.path)/\($0)" }
    for round in 0..<5 {
      let cache = folder.appendingPathComponent("cache\(round)").path
      let result = try runExecutable([
        "render", "--family", "avatar", "--jobs", "2", "--quiet", "--cache", cache, photos.path,
      ])
      #expect(result.status == 1)
      var failures = result.out.split(separator: "\n").map(String.init).filter {
        $0.hasPrefix("  failed: ")
      }
      // A TIFF whose libvips text is cut at libvips's buffer's end is matched on its own.
      for tiff in BadTIFF.all where tiff.libvipsLines != nil {
        let head = "  failed: \(photos.path)/\(tiff.name): "
        let index = failures.firstIndex { $0.hasPrefix(head) }
        #expect(
          index.map { tiff.isReason(String(failures[$0].dropFirst(head.count))) } == true,
          "round \(round): \(tiff):\n\(result.out)")
        if let index { failures.remove(at: index) }
      }
      // A HEIF's libvips text holds lines of libvips's own before libheif's: matched on
      // our words and libheif's line.
      for heif in BadHEIF.all {
        let head = "  failed: \(photos.path)/\(heif.name): "
        let index = failures.firstIndex { $0.hasPrefix(head) }
        #expect(
          index.map { heif.isReason(String(failures[$0].dropFirst(head.count))) } == true,
          "round \(round): \(heif):\n\(result.out)")
        if let index { failures.remove(at: index) }
      }
      #expect(failures == expected, "round \(round):\n\(result.out)")
    }
  }
}

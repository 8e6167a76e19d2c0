import Foundation
import TestFixtures
import Testing

/// `--fail-on LEVEL` on `render` and `apply`, with files made from `hubble.jpg`.
@Suite("--fail-on")
struct FailOnCommandTests {
  private func json(_ lines: [String]) throws -> [String: Any] {
    try #require(
      try JSONSerialization.jsonObject(with: Data(lines.joined().utf8)) as? [String: Any])
  }

  /// A folder with a JPEG missing only its EOI marker and one cut mid-scan.
  private func damagedPhotos() throws -> URL {
    let folder = try Fixtures.temporaryFolder().appendingPathComponent("photos")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    _ = try Generated.jpegWithoutEndMarker(in: folder)
    _ = try Generated.truncatedJPEG(in: folder)
    return folder
  }

  @Test func renderDrawsAMissingEndMarkerAndRefusesACutByDefault() async throws {
    let photos = try damagedPhotos()
    let cache = photos.deletingLastPathComponent().appendingPathComponent("cache").path
    let result = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--json", photos.path,
    ])
    #expect(result.status == 1)
    let summary = try json(result.out)
    #expect(summary["written"] as? Int == 3)
    let failed = try #require(summary["failed"] as? [[String: String]])
    #expect(failed.map { $0["path"] } == [photos.path + "/truncated.jpg"])
    #expect(startsWithTruncation(failed.first?["error"]), "\(failed)")
  }

  @Test func renderWithFailOnNoneDrawsBoth() async throws {
    let photos = try damagedPhotos()
    let cache = photos.deletingLastPathComponent().appendingPathComponent("cache").path
    let result = await runTool([
      "render", "--family", "avatar", "--fail-on", "none", "--cache", cache, "--json",
      photos.path,
    ])
    #expect(result.status == 0, "\(result.err)")
    let summary = try json(result.out)
    #expect(summary["written"] as? Int == 6)
    #expect((summary["failed"] as? [[String: String]])?.isEmpty == true)
  }

  @Test func anUnknownLevelIsAUsageErrorNamingTheLevels() async throws {
    let result = await runTool([
      "render", "--family", "avatar", "--fail-on", "bogus", "--cache",
      try Fixtures.temporaryFolder().path, Paths.bundled("coffee.png"),
    ])
    #expect(result.status == 64)
    #expect(
      result.err.first
        == "imgtool: invalid value 'bogus' for '--fail-on': expected none, truncated, error, warning"
    )
  }

  /// `apply` of the file without its EOI marker writes the same image as of the whole
  /// file; with `--fail-on warning` it is refused, as libvips refuses it.
  @Test func applyDrawsAMissingEndMarkerAsTheWholeFile() async throws {
    let folder = try Fixtures.temporaryFolder()
    let cut = try Generated.jpegWithoutEndMarker(in: folder)
    let arguments = ["apply", "--pipeline", "fill", "--size", "48x32"]
    let fromCut = folder.appendingPathComponent("cut.png").path
    let fromWhole = folder.appendingPathComponent("whole.png").path
    #expect(await runTool(arguments + [cut, fromCut]).status == 0)
    #expect(await runTool(arguments + [Paths.bundled("hubble.jpg"), fromWhole]).status == 0)
    #expect(FileManager.default.contentsEqual(atPath: fromCut, andPath: fromWhole))
    let strict = await runTool(arguments + ["--fail-on", "warning", cut, fromCut + ".png"])
    #expect(strict.status == 1)
    #expect(
      startsWithTruncation(strict.err.first, after: "imgtool: \(cut): "), "\(strict.err)")
  }

  @Test func applyWithFailOnWarningRefusesAJPEGLibjpegWarnsAbout() async throws {
    let folder = try Fixtures.temporaryFolder()
    let path = try Generated.jpegWithExtraneousBytes(in: folder)
    let arguments = ["apply", "--pipeline", "fit", "--size", "32x32"]
    let out = folder.appendingPathComponent("out.png").path
    #expect(await runTool(arguments + [path, out]).status == 0)
    let strict = await runTool(arguments + ["--fail-on", "warning", path, out])
    #expect(strict.status == 1)
    // libjpeg's own words for the junk it skipped (libvips's message, for now).
    #expect(
      strict.err.first.map {
        $0.hasPrefix("imgtool: \(path): ")
          && $0.contains("Corrupt JPEG data: 4 extraneous bytes before marker 0xda")
      } == true, "\(strict.err)")
  }

  /// `info` checks that the data decodes at the level given, as a render would.
  @Test func infoChecksTheDecodeAtTheLevelGiven() async throws {
    let folder = try Fixtures.temporaryFolder()
    let withoutEOI = try Generated.jpegWithoutEndMarker(in: folder)
    let cut = try Generated.truncatedJPEG(in: folder)
    let line = "1000x872, 3 bands, 8-bit, srgb, jpegload, orientation 1, no alpha, ICC profile"
    let lenient = await runTool(["info", withoutEOI])
    #expect(lenient.status == 0)
    #expect(lenient.out == ["\(withoutEOI): \(line)"])
    let refused = await runTool(["info", cut])
    #expect(refused.status == 1)
    #expect(
      startsWithTruncation(refused.err.first, after: "imgtool: \(cut): "), "\(refused.err)")
    let none = await runTool(["info", "--fail-on", "none", cut])
    #expect(none.status == 0)
    #expect(none.out == ["\(cut): \(line)"])
    let strict = await runTool(["info", "--fail-on", "warning", withoutEOI])
    #expect(strict.status == 1)
  }

  /// A JPEG whose scan runs out of data before an EOI marker: `info`, `apply` and a render
  /// refuse it by default, each naming the file once; `--fail-on none` draws it.
  @Test func aScanThatRunsOutIsRefusedByEveryCommand() async throws {
    let folder = try Fixtures.temporaryFolder()
    let path = try Generated.jpegCutWithEndMarker("rocket.jpg", in: folder)
    let reason =
      "the image data ends early (truncated): a scan runs out of data before the photo's "
      + "last row (libjpeg would fill the rest with grey) "
      + "(libvips: libjpeg: Corrupt JPEG data: premature end of data segment)"
    let info = await runTool(["info", path])
    #expect(info.status == 1)
    #expect(info.err == ["imgtool: \(path): \(reason)"])
    let out = folder.appendingPathComponent("out.png").path
    let apply = await runTool(["apply", "--pipeline", "fit", "--size", "32x32", path, out])
    #expect(apply.status == 1)
    #expect(apply.err == ["imgtool: \(path): \(reason)"])
    #expect(!FileManager.default.fileExists(atPath: out))
    let cache = folder.appendingPathComponent("cache").path
    let render = await runTool([
      "render", "--family", "avatar", "--quiet", "--cache", cache, path,
      Paths.bundled("hubble.jpg"),
    ])
    #expect(render.status == 1)
    // The summary names the failed photo once, and hubble.jpg is rendered.
    #expect(render.out.contains("  failed: \(path): \(reason)"), "\(render.out)")
    #expect(render.out.filter { $0.contains(path) }.count == 1, "\(render.out)")
    #expect(render.out.first?.contains("1 rendered, 0 up to date, 1 failed") == true)
    let lenient = await runTool(["info", "--fail-on", "none", path])
    #expect(lenient.status == 0, "\(lenient.err)")
  }

  /// The warnings of photos refused before it are not read as a later photo's reason:
  /// libvips keeps their text in its one error buffer. A JPEG cut inside its tables
  /// (rocket.jpg's first 700 bytes, then FF D9) fails for its own reason, not "truncated".
  @Test func aRefusedPhotosWarningsAreNotTheNextPhotosReason() async throws {
    let folder = try Fixtures.temporaryFolder()
    var inputs: [String] = []
    for (index, name) in ["rocket.jpg", "hubble.jpg", "retina.jpg"].enumerated() {
      let cut = try Generated.jpegCutWithEndMarker(name, in: folder)
      let path = folder.appendingPathComponent("\(index)-\(name)").path
      try FileManager.default.moveItem(atPath: cut, toPath: path)
      inputs.append(path)
    }
    let rocket = try Fixtures.bytes("rocket.jpg")
    let headerCut = try Generated.file(
      "3-tables-cut.jpg", bytes: Array(rocket.prefix(700)) + [0xFF, 0xD9], in: folder)
    let alone = await runTool([
      "render", "--family", "avatar", "--quiet", "--jobs", "1", "--cache",
      folder.appendingPathComponent("alone").path, headerCut,
    ])
    let after = await runTool(
      [
        "render", "--family", "avatar", "--quiet", "--jobs", "1", "--cache",
        folder.appendingPathComponent("cache").path,
      ] + inputs + [headerCut])
    // libvips's own text for the file varies from run to run ("source: bad seek to ..."
    // before libjpeg's reason, or not): its reason, never the others' words.
    for result in [alone, after] {
      let line = try #require(result.out.first { $0.contains(headerCut) }, "\(result.out)")
      #expect(
        line.hasPrefix(
          "  failed: \(headerCut): the JPEG's quantisation table is damaged (libvips: "),
        "\(line)")
      #expect(line.contains("VipsJpeg: Bogus DQT index 9"), "\(line)")
      #expect(!line.contains("premature end") && !line.contains("truncated"), "\(line)")
    }
  }

  @Test func helpExplainsTheLevels() async throws {
    for command in ["render", "apply", "info"] {
      let help = await runTool(["help", command]).out.joined(separator: "\n")
      #expect(help.contains("--fail-on <level>"), "\(command)")
      #expect(help.contains("none (draw what decodes)"), "\(command)")
    }
  }
}

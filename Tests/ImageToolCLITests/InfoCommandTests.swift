import Foundation
import TestFixtures
import Testing
import Vips

@testable import ImageToolCLI

@Suite("imgtool info")
struct InfoCommandTests {
  @Test func oneLinePerFile() async {
    let result = await runTool(["info", Paths.bundled("rocket.jpg"), Paths.bundled("chelsea.png")])
    #expect(result.status == 0)
    #expect(result.err.isEmpty)
    #expect(
      result.out == [
        "\(Paths.bundled("rocket.jpg")): 640x427, 3 bands, 8-bit, srgb, jpegload, orientation 1, no alpha, ICC profile",
        "\(Paths.bundled("chelsea.png")): 451x300, 3 bands, 8-bit, srgb, pngload, orientation 1, no alpha, ICC profile",
      ])
  }

  @Test func jsonHasTheDocumentedKeys() async throws {
    let result = await runTool(["info", "--json", Paths.bundled("coffee.png")])
    #expect(result.status == 0)
    let line = try #require(result.out.first)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect(
      Set(object.keys)
        == [
          "file", "width", "height", "bands", "bits", "interpretation", "loader", "orientation",
          "alpha", "icc",
        ])
    #expect(object["width"] as? Int == 600 && object["height"] as? Int == 400)
    #expect(object["bits"] as? Int == 8 && object["loader"] as? String == "pngload")
    #expect(object["alpha"] as? Bool == false && object["icc"] as? Bool == false)
    #expect(line.hasPrefix(#"{"file":"#))
  }

  @Test func sizeIsAsDisplayedAfterOrientation() async throws {
    let folder = try Paths.temporaryFolder()
    let path = folder.appendingPathComponent("turned.jpg").path
    let result = await runTool(["info", "--json", try makeRotatedJPEG(at: path)])
    #expect(result.out.first?.contains(#""width":451,"height":300"#) == true)
    #expect(result.out.first?.contains(#""orientation":6"#) == true)
  }

  @Test func badFilesFailAloneWithOneLineEach() async throws {
    let folder = try Paths.temporaryFolder()
    let empty = folder.appendingPathComponent("empty.jpg").path
    let text = folder.appendingPathComponent("text.jpg").path
    _ = FileManager.default.createFile(atPath: empty, contents: Data())
    _ = FileManager.default.createFile(atPath: text, contents: Data("hello\n".utf8))
    let good = Paths.bundled("coffee.png")
    let result = await runTool(["info", empty, good, text, "/missing.png"])
    #expect(result.status == 1)
    #expect(result.out.count == 1 && result.out[0].hasPrefix("\(good): 600x400"))
    #expect(
      result.err == [
        "imgtool: \(empty): the file is empty (0 bytes)",
        "imgtool: \(text): not an image: no loader recognises its contents",
        "imgtool: /missing.png: cannot read the file: no such file",
      ])
  }

  @Test func headerOnlySaysThePixelsWereNotChecked() async {
    let path = Paths.bundled("rocket.jpg")
    let result = await runTool(["info", "--header-only", path])
    #expect(
      result.out == [
        "\(path): 640x427, 3 bands, 8-bit, srgb, jpegload, orientation 1, no alpha, ICC profile, "
          + "header ok, pixels not checked"
      ])
    let json = await runTool(["info", "--header-only", "--json", path])
    #expect(json.out.first?.hasSuffix(#","checked":"header ok, pixels not checked"}"#) == true)
  }

  /// A photo cut short: its header reads, its pixels do not. `info --check` says what
  /// `apply` says, with apply's exit status; a whole photo is "pixels ok".
  /// libvips reads a GIF's header by walking every frame, warning when they end early:
  /// --header-only refuses a GIF cut short as truncated, as its help says.
  @Test func aGIFCutShortIsRefusedEvenHeaderOnly() async throws {
    let cut = try Paths.temporaryFolder().appendingPathComponent("cut.gif").path
    let bytes = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.path("chelsea.gif")))
    try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
    let header = await runTool(["info", "--header-only", cut])
    #expect(header.status == 1 && header.out.isEmpty)
    #expect(
      header.err == [
        "imgtool: \(cut): the image data ends early (truncated) (libvips: gifload: "
          + "Unexpected end of GIF source data)"
      ])
    let help = await runTool(["info", "--help"])
    #expect(help.out.joined(separator: " ").contains("a GIF cut short is refused as truncated"))
  }

  @Test(arguments: [
    ("rocket.jpg", 60_000, "the image data ends early (truncated)"),
    ("coffee.png", 200_000, "the PNG ends early: inside its chunk 'IDAT' at byte 196969"),
  ])
  func checkDecodesAsApplyDoes(_ photo: String, _ keep: Int, _ reason: String) async throws {
    let folder = try Paths.temporaryFolder()
    let cut = folder.appendingPathComponent("cut-" + photo).path
    let bytes = try Data(contentsOf: URL(fileURLWithPath: Paths.bundled(photo)))
    try bytes.prefix(keep).write(to: URL(fileURLWithPath: cut))
    let header = await runTool(["info", "--header-only", cut])
    #expect(
      header.status == 0 && header.out.first?.hasSuffix("header ok, pixels not checked") == true)
    let check = await runTool(["info", "--check", cut])
    let apply = await runTool([
      "apply", "--pipeline", "fill", "--size", "64x64", cut,
      folder.appendingPathComponent("out.png").path,
    ])
    #expect(apply.status == 1 && check.status == apply.status)
    #expect(check.out.isEmpty && apply.out.isEmpty)
    #expect(check.err.count == 1 && check.err == apply.err)
    #expect(
      check.err.first?.hasPrefix("imgtool: \(cut): \(reason)") == true, "\(check.err)")
    let whole = await runTool(["info", "--check", Paths.bundled(photo)])
    #expect(whole.status == 0 && whole.out.first?.hasSuffix(", pixels ok") == true)
  }

  @Test func limitsComeFromOptions() async {
    let path = Paths.bundled("rocket.jpg")
    let result = await runTool(["info", "--max-dimension", "600", path])
    #expect(result.status == 1)
    #expect(result.err.first?.contains("has a side longer than the limit of 600 pixels") == true)
    let bad = await runTool(["info", "--max-pixels", "many", path])
    #expect(bad.status == 64)
    #expect(
      bad.err.first
        == "imgtool: invalid value 'many' for '--max-pixels': expected a whole number from 1 to 1000000000000"
    )
  }

  private func makeRotatedJPEG(at path: String) throws -> String {
    // Through the public library: stored sideways, tagged to be turned clockwise.
    let upright = try VipsImage(file: Paths.bundled("chelsea.png"))
    try upright.rotated(quarterTurns: 3).settingOrientation(6).write(to: path)
    return path
  }
}

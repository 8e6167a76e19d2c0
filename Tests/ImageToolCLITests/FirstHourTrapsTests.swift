import Foundation
import TestFixtures
import Testing
import Vips

@testable import ImageTables
@testable import ImageToolCLI

/// The traps of a newcomer's first hour that issue 24 found: each message exactly as a
/// person sees it, and nothing written by a command that is refused.
@Suite("A first hour without traps")
struct FirstHourTrapsTests {
  /// A manifest file in `folder` with `formats` (JSON objects).
  private func manifest(_ formats: [String], in folder: URL) throws -> String {
    let path = folder.appendingPathComponent("imgtool.json").path
    try #"{ "formats": [ \#(formats.joined(separator: ", ")) ] }"#
      .write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  // MARK: Sheets

  @Test func aSheetOfAFamilyNotRenderedYetSaysToRenderTheFamily() async throws {
    let work = try Fixtures.temporaryFolder()
    let cache = work.appendingPathComponent("cache").path
    let output = work.appendingPathComponent("sheet.png").path
    let result = await runTool(["sheet", "--family", "photo", "--cache", cache, output])
    #expect(result.status == 64)
    #expect(
      result.err.first
        == "imgtool: invalid value 'photo' for '--family': \(cache) holds no table for it yet; "
        + "render it first: imgtool render --family photo <photos>")
    #expect(!FileManager.default.fileExists(atPath: output))
    #expect(!FileManager.default.fileExists(atPath: cache))
  }

  @Test func aFormatThatDoesNotExistIsNotToldToRender() async throws {
    let work = try Fixtures.temporaryFolder()
    let cache = work.appendingPathComponent("cache").path
    let output = work.appendingPathComponent("sheet.png").path
    let huge = await runTool(["sheet", "--format", "avatar.huge", "--cache", cache, output])
    #expect(huge.status == 64)
    #expect(
      huge.err.first
        == "imgtool: invalid value 'avatar.huge' for '--format': no such format in the built-in "
        + "manifest; family 'avatar' has: avatar.small, avatar.medium, avatar.large")
    let export = await runTool([
      "export", "--format", "thumb", "--entity", "a.png", "--cache", cache, output,
    ])
    #expect(
      export.err.first
        == "imgtool: invalid value 'thumb' for '--format': no such format in the built-in "
        + "manifest, which has: avatar.small, avatar.medium, avatar.large, photo.thumb, "
        + "photo.screen")
    // A format of the manifest that is not rendered yet: render its family.
    let small = await runTool(["sheet", "--format", "avatar.small", "--cache", cache, output])
    #expect(
      small.err.first
        == "imgtool: invalid value 'avatar.small' for '--format': no table for it in \(cache); "
        + "render its family first")
  }

  /// Every format lays out the same entities in the same order, whatever order its
  /// slots hold them in (the order rendered); a format that lacks one leaves its cell
  /// empty.
  @Test func everyFormatOfASheetShowsTheEntitiesInOneOrder() async throws {
    let (three, cache) = try copiedPhotos(["astronaut.png", "chelsea.png", "coffee.png"])
    let (two, _) = try copiedPhotos(["astronaut.png", "chelsea.png"])
    let (rocket, _) = try copiedPhotos(["rocket.jpg"])
    let path = try manifest(
      [
        #"{ "name": "x.one", "family": "x", "size": "8x8", "scale": 1 }"#,
        #"{ "name": "y.one", "family": "y", "size": "8x8", "scale": 1 }"#,
      ], in: three.deletingLastPathComponent())
    let options = ["--manifest", path, "--cache", cache, "--quiet", "--jobs", "1"]
    for (family, folder) in [("x", rocket), ("x", two), ("y", three), ("y", rocket)] {
      #expect(await runTool(["render", "--family", family] + options + [folder.path]).status == 0)
    }
    let tables = try ["x.one", "y.one"].map {
      ($0, try ImageTable(existingTableAt: cache + "/\($0).table"))
    }
    // In the order rendered: rocket.jpg first in one, last in the other.
    #expect(tables[0].1.entries().map(\.entityID).first == "rocket.jpg")
    #expect(tables[1].1.entries().map(\.entityID).last == "rocket.jpg")
    let cells = ContactSheet.cells(tables)
    #expect(cells.map(\.format) == ["x.one", "y.one"])
    #expect(cells[0].cells == ["astronaut.png", "chelsea.png", nil, "rocket.jpg"])
    #expect(cells[1].cells == ["astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg"])
  }

  /// Each entry has its entity id under it, in white: the strip under the entry of a
  /// sheet of one 32x32 photo holds light ink on the dark ground (32, 32, 36), and the
  /// sheet is as high as the entry and that label.
  @Test func everyEntryOfASheetIsLabelledWithItsEntity() async throws {
    let (folder, cache) = try copiedPhotos(["chelsea.png"])
    let path = try manifest(
      [
        #"{ "name": "t.one", "family": "t", "size": "32x32", "scale": 1, "style": "bgr32", "pipeline": "fill" }"#
      ],
      in: folder.deletingLastPathComponent())
    let sheet = folder.deletingLastPathComponent().appendingPathComponent("sheet.png").path
    let rendered = await runTool([
      "render", "--family", "t", "--manifest", path, "--cache", cache, "--quiet", "--sheet",
      sheet, folder.path,
    ])
    #expect(rendered.status == 0, "\(rendered.err)")
    let image = try VipsImage(file: sheet)
    let label = try TextImage.white("chelsea.png", font: "sans 8")
    let title = try TextImage.white("t.one: 1 entries")
    let gap = ContactSheet.gap
    // Frame, title, gap, then the entry (32 high), 2 pixels, its label.
    let top = gap * 2 + title.height + gap + 32 + 2
    #expect(image.height == top + label.height + gap * 2)
    #expect(image.width == gap * 4 + max(title.width, label.width, 32))
    var inked = 0
    for y in top..<(top + label.height) {
      for x in (gap * 2)..<(gap * 2 + label.width) {
        let pixel = try image.pixel(x: x, y: y)
        if pixel.prefix(3).allSatisfy({ $0 > 128 }) { inked += 1 }
      }
    }
    #expect(inked > 20, "\(inked) light pixels under the entry")
  }

  // MARK: Where output goes

  @Test func anOutputInAFolderThatIsNotThereIsNamedBeforeAnyWork() async throws {
    let (folder, cache) = try copiedPhotos(["chelsea.png"])
    #expect(
      await runTool(["render", "--family", "avatar", "--cache", cache, "--quiet", folder.path])
        .status == 0)
    let missing = folder.deletingLastPathComponent().appendingPathComponent("nodir")
    let output = missing.appendingPathComponent("x.png").path
    let said =
      "cannot write \(output): the folder \(missing.path) does not exist; create it first "
      + "(mkdir -p \(missing.path)) or give a path in a folder that does"
    let commands: [([String], String)] = [
      (["sheet", "--family", "avatar", "--cache", cache, output], "imgtool: " + said),
      (
        [
          "export", "--format", "avatar.small", "--entity", "chelsea.png", "--cache", cache, output,
        ],
        "imgtool: " + said
      ),
      (
        ["apply", "--pipeline", "fill", "--size", "8x8", Paths.bundled("chelsea.png"), output],
        "imgtool: " + said
      ),
      (
        ["browse", "--family", "avatar", "--cache", cache, "--out", output],
        "imgtool: --out: " + said
      ),
    ]
    for (arguments, message) in commands {
      let result = await runTool(arguments)
      #expect(result.status == 1, "\(arguments[0])")
      #expect(result.err == [message], "\(arguments[0])")
      #expect(result.out.isEmpty, "\(arguments[0])")
    }
    #expect(!FileManager.default.fileExists(atPath: missing.path))
  }

  @Test func anOutputThatIsAFolderIsNamed() async throws {
    let work = try Fixtures.temporaryFolder()
    let output = work.appendingPathComponent("out.png")
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    let result = await runTool([
      "apply", "--pipeline", "fill", "--size", "8x8", Paths.bundled("chelsea.png"), output.path,
    ])
    #expect(result.status == 1)
    #expect(
      result.err == ["imgtool: cannot write \(output.path): it is a folder; give a file's name"])
  }

  // MARK: What a render is given

  @Test func aFolderThatIsNotThereIsRefusedAndNothingIsMade() async throws {
    let work = try Fixtures.temporaryFolder()
    let cache = work.appendingPathComponent("cache").path
    let missing = work.appendingPathComponent("Photos").path
    let result = await runTool(["render", "--family", "avatar", "--cache", cache, missing])
    #expect(result.status == 1)
    #expect(result.out.isEmpty)
    #expect(
      result.err == [
        "imgtool: render: \(missing): no such file or folder",
        "imgtool: render: no photo to render in \(missing); nothing was written",
      ])
    #expect(!FileManager.default.fileExists(atPath: cache))
  }

  /// A render refused for a pipeline of its family's last format makes no table of the
  /// others (nor the cache folder): every pipeline is built before any table is opened.
  @Test func aRefusedRenderWritesNothing() async throws {
    let work = try Fixtures.temporaryFolder()
    let path = try manifest(
      [
        #"{ "name": "a", "family": "f", "size": "8x8" }"#,
        #"{ "name": "b", "family": "f", "size": "8x8", "pipeline": "fill | circel" }"#,
      ], in: work)
    let cache = work.appendingPathComponent("cache").path
    let result = await runTool([
      "render", "--family", "f", "--manifest", path, "--cache", cache, Paths.bundled("coffee.png"),
    ])
    #expect(result.status == 1)
    #expect(
      result.err.first?.hasPrefix("imgtool: \(path): formats[1].pipeline: format 'b': ") == true,
      "\(result.err)")
    #expect(!FileManager.default.fileExists(atPath: cache))
  }

  // MARK: manifest --check

  @Test func manifestCheckNamesEveryMistake() async throws {
    let work = try Fixtures.temporaryFolder()
    let path = work.appendingPathComponent("imgtool.json").path
    try #"""
    { "cache": 3, "backgrund": "#000",
      "formats": [
        { "name": "a", "family": "f", "size": "8x8", "style": "rgb" },
        { "name": "b", "family": "f", "size": "huge" },
        { "name": "c", "family": "f", "size": "8x8", "pipeline": "fill | circel" },
        { "name": "a", "family": "f", "size": "8x8" }
      ] }
    """#.write(toFile: path, atomically: true, encoding: .utf8)
    let result = await runTool(["manifest", "--check", path])
    #expect(result.status == 1)
    #expect(result.out.isEmpty)
    #expect(
      result.err.map { $0.split(separator: "\n").first.map(String.init) ?? $0 } == [
        "imgtool: \(path): backgrund: unknown field; did you mean 'background'?",
        "imgtool: \(path): formats[0].style: 'rgb' is not a style; use bgra32, bgr32, bgr555 "
          + "or gray8",
        "imgtool: \(path): formats[1].size: 'huge' must be \"WIDTHxHEIGHT\" in points, "
          + "[width, height] or {\"width\": w, \"height\": h}",
        "imgtool: \(path): cache: must be a string",
        "imgtool: \(path): format 'c': pipeline: column 8: unknown processor 'circel'; did you "
          + "mean 'circle'?",
      ])
    // A render stops at the first, as before.
    let render = await runTool([
      "render", "--family", "f", "--manifest", path, "--cache", work.path + "/cache",
      Paths.bundled("coffee.png"),
    ])
    #expect(
      render.err.first == "imgtool: \(path): backgrund: unknown field; did you mean 'background'?")
  }

  // MARK: Error lines

  /// libvips starts each line of its message with the file's name; the error line says
  /// it once, in front (a HEIC cut short named it three times).
  @Test func anErrorLineNamesTheFileOnce() async throws {
    let work = try Fixtures.temporaryFolder()
    let cut = work.appendingPathComponent("cut.heic").path
    let whole = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("chelsea.heic")))
    try whole.prefix(4000).write(to: URL(fileURLWithPath: cut))
    let result = await runTool(["info", cut])
    #expect(result.status == 1)
    let line = try #require(result.err.first)
    #expect(startsWithTruncation(line, after: "imgtool: \(cut): "), "\(line)")
    #expect(line.components(separatedBy: cut).count == 2, "\(line)")
    #expect(line.contains("bad seek to "), "\(line)")
    // A save's message, as libvips words it, names the file once too.
    let save = VipsError.operationFailed(
      operation: "pngsave", source: "out/x.png",
      message: "out/x.png: unable to open for write; unix error: No such file or directory")
    #expect(
      save.description
        == "out/x.png: pngsave failed: unable to open for write; unix error: No such file or "
        + "directory")
  }
}

import Foundation
import ImageCaching
import ImageTables
import Testing
import Vips

@testable import ImageToolCLI

@Suite("imgtool render, export, sheet and manifest")
struct RenderCommandTests {
  /// A folder of the bundled photos, one in a subfolder, and a broken JPEG among them.
  private func photoFolder() throws -> URL {
    let folder = try Paths.temporaryFolder().appendingPathComponent("photos")
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("space"), withIntermediateDirectories: true)
    for name in ["chelsea.png", "coffee.png", "astronaut.png"] {
      try FileManager.default.copyItem(
        atPath: Paths.bundled(name), toPath: folder.appendingPathComponent(name).path)
    }
    for name in ["hubble.jpg", "rocket.jpg"] {
      try FileManager.default.copyItem(
        atPath: Paths.bundled(name), toPath: folder.appendingPathComponent("space/\(name)").path)
    }
    let jpeg = try Data(contentsOf: URL(fileURLWithPath: Paths.bundled("rocket.jpg")))
    try jpeg.prefix(jpeg.count / 2).write(to: folder.appendingPathComponent("broken.jpg"))
    try Data("notes".utf8).write(to: folder.appendingPathComponent("README.md"))
    return folder
  }

  private func json(_ lines: [String]) throws -> [String: Any] {
    try #require(
      try JSONSerialization.jsonObject(with: Data(lines.joined().utf8)) as? [String: Any])
  }

  @Test func aBrokenPhotoFailsAloneAndTheRestIsRendered() async throws {
    let photos = try photoFolder()
    let cache = photos.deletingLastPathComponent().appendingPathComponent("cache").path
    let result = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--json", photos.path,
    ])
    #expect(result.status == 1)
    let summary = try json(result.out)
    #expect(summary["inputs"] as? Int == 6)
    #expect(summary["written"] as? Int == 15)
    #expect(summary["skipped"] as? Int == 0)
    let failed = try #require(summary["failed"] as? [[String: String]])
    #expect(failed.count == 1)
    #expect(failed.first?["path"] == photos.path + "/broken.jpg")
    #expect(failed.first?["error"]?.hasPrefix("the image data ends early (truncated)") == true)
    #expect(summary["seconds"] is Double)
    let tables = try #require(summary["tables"] as? [[String: Any]])
    #expect(
      tables.map { $0["format"] as? String } == ["avatar.small", "avatar.medium", "avatar.large"])
    #expect(tables.allSatisfy { $0["entries"] as? Int == 5 })
    // Entity ids are paths relative to the folder given.
    let table = try ImageTable(existingTableAt: cache + "/avatar.small.table")
    #expect(
      Set(table.entries().map(\.entityID))
        == ["astronaut.png", "chelsea.png", "coffee.png", "space/hubble.jpg", "space/rocket.jpg"])
    // Nothing was written for the broken one.
    #expect(!table.entries().contains { $0.entityID == "broken.jpg" })
  }

  /// A file named both itself and through its folder is one photo; two files that
  /// would get the same entity id are not both rendered, and the second says why.
  @Test func aFileNamedTwiceIsOnePhotoAndTwoFilesWithOneIDAreRefused() async throws {
    let root = try Paths.temporaryFolder()
    for folder in ["one", "two"] {
      try FileManager.default.createDirectory(
        at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        atPath: Paths.bundled("rocket.jpg"),
        toPath: root.appendingPathComponent("\(folder)/rocket.jpg").path)
    }
    let one = root.appendingPathComponent("one")
    let twice = await runTool([
      "render", "--family", "avatar", "--cache", root.appendingPathComponent("cache1").path,
      "--json", one.path, one.appendingPathComponent("rocket.jpg").path,
    ])
    #expect(twice.status == 0)
    let summary = try json(twice.out)
    #expect(summary["inputs"] as? Int == 1)
    #expect(summary["written"] as? Int == 3)
    #expect((summary["failed"] as? [[String: String]])?.isEmpty == true)

    let other = root.appendingPathComponent("two/rocket.jpg").path
    let clash = await runTool([
      "render", "--family", "avatar", "--cache", root.appendingPathComponent("cache2").path,
      "--json", one.appendingPathComponent("rocket.jpg").path, other,
    ])
    #expect(clash.status == 1)
    let failed = try #require(try json(clash.out)["failed"] as? [[String: String]])
    #expect(
      failed == [
        [
          "path": other,
          "error": "its entity id 'rocket.jpg' is also "
            + "\(one.appendingPathComponent("rocket.jpg").path)'s; give a folder that holds "
            + "both (an id is the path below the folder given), or render them into different "
            + "caches",
        ]
      ])
  }

  @Test func upToDateEntriesAreSkippedAndChangesRerender() async throws {
    let photos = try photoFolder()
    try FileManager.default.removeItem(at: photos.appendingPathComponent("broken.jpg"))
    let cache = photos.deletingLastPathComponent().appendingPathComponent("cache").path
    let first = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--quiet", photos.path,
    ])
    #expect(first.status == 0)
    #expect(first.err.isEmpty)
    #expect(
      first.out.first?.hasPrefix(
        "render: family avatar: 5 photos: 5 rendered, 0 up to date, 0 failed; 15 entries written, in"
      ) == true, "\(first.out)")
    let again = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--json", photos.path,
    ])
    #expect(try json(again.out)["written"] as? Int == 0)
    #expect(try json(again.out)["skipped"] as? Int == 5)
    // A changed photo (new bytes, same name) is re-rendered; the rest are skipped.
    try FileManager.default.removeItem(at: photos.appendingPathComponent("coffee.png"))
    try FileManager.default.copyItem(
      atPath: Paths.bundled("rocket.jpg"), toPath: photos.appendingPathComponent("coffee.png").path)
    let changed = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--json", photos.path,
    ])
    #expect(try json(changed.out)["written"] as? Int == 3)
    #expect(try json(changed.out)["skipped"] as? Int == 4)
    let forced = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--json", "--force", photos.path,
    ])
    #expect(try json(forced.out)["written"] as? Int == 15)
  }

  /// A photo rewritten in place with bytes of the same length, its modification time put
  /// back to the nanosecond (as `touch -d` or a restore would), is still re-rendered: the
  /// up-to-date check trusts the bytes' checksum, not the file's size and times.
  @Test func aPhotoChangedInPlaceWithItsSizeAndTimeKeptIsRerendered() async throws {
    let folder = try Paths.temporaryFolder().appendingPathComponent("photos")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Paths.bundled("chelsea.png"))))
    for name in ["a.png", "b.png"] {
      try Data(png + Array("version-1".utf8)).write(to: folder.appendingPathComponent(name))
    }
    let changed = folder.appendingPathComponent("b.png").path
    let cache = folder.deletingLastPathComponent().appendingPathComponent("cache").path
    let arguments = ["render", "--family", "avatar", "--cache", cache, "--json", folder.path]
    let first = await runTool(arguments)
    #expect(first.status == 0)
    #expect(try json(first.out)["written"] as? Int == 6)
    #expect(try json(await runTool(arguments).out)["skipped"] as? Int == 2)
    var before = stat()
    #expect(stat(changed, &before) == 0)
    // The same length, other bytes, written into the same file (same inode).
    let handle = try #require(FileHandle(forWritingAtPath: changed))
    try handle.write(contentsOf: Data(png + Array("version-2".utf8)))
    try handle.close()
    var times = [before.st_atim, before.st_mtim]
    #expect(utimensat(AT_FDCWD, changed, &times, 0) == 0)
    var after = stat()
    #expect(stat(changed, &after) == 0)
    #expect(after.st_ino == before.st_ino && after.st_size == before.st_size)
    #expect(
      after.st_mtim.tv_sec == before.st_mtim.tv_sec
        && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
    let again = await runTool(arguments)
    #expect(again.status == 0)
    #expect(try json(again.out)["written"] as? Int == 3)
    #expect(try json(again.out)["skipped"] as? Int == 1)
    let table = try ImageTable(existingTableAt: cache + "/avatar.small.table")
    #expect(
      table.sourceVersion(entityID: "b.png")
        == RenderedEntity.sourceVersion(of: png + Array("version-2".utf8)))
  }

  @Test func progressIsOneLinePerPhotoWhenNotATerminal() async throws {
    let photos = try photoFolder()
    let cache = photos.deletingLastPathComponent().appendingPathComponent("cache").path
    let result = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--jobs", "1", photos.path,
    ])
    #expect(result.err.count == 6)
    #expect(result.err.first?.hasPrefix("[1/6] ") == true)
    // The reason's tail is libvips's message, or ours when a parallel test's failure
    // took libvips's shared error buffer first.
    #expect(
      result.err.contains { line in
        line.hasPrefix("[")
          && line.ranges(of: "/broken.jpg: failed: ").first.map {
            startsWithTruncation(String(line[$0.upperBound...]))
          } == true
      })
    #expect(
      result.out.contains {
        $0.hasPrefix("  failed: \(photos.path)/broken.jpg: the image data ends early")
      })
  }

  @Test func theLargestPhotosStartFirst() async throws {
    // astronaut.png 791,555 bytes, space/hubble.jpg 527,940, coffee.png 466,706,
    // chelsea.png 240,512, space/rocket.jpg 112,525, broken.jpg half of rocket.jpg.
    let photos = try photoFolder()
    let cache = photos.deletingLastPathComponent().appendingPathComponent("cache").path
    let result = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--jobs", "1", photos.path,
    ])
    let order = result.err.compactMap { line in
      line.split(separator: " ").dropFirst().first.map {
        String($0.dropFirst(photos.path.count + 1).prefix { $0 != ":" })
      }
    }
    #expect(
      order == [
        "astronaut.png", "space/hubble.jpg", "coffee.png", "chelsea.png", "space/rocket.jpg",
        "broken.jpg",
      ])
  }

  @Test func equalSizesKeepTheirOrderAndAMissingFileGoesLast() throws {
    let folder = try Paths.temporaryFolder()
    let inputs = [("a", 2), ("b", 5), ("c", 2), ("gone", -1), ("d", 5)].map { name, size in
      let path = folder.appendingPathComponent(name).path
      if size >= 0 {
        #expect(
          FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: size)))
      }
      return RenderInputs.Input(path: path, entityID: name)
    }
    #expect(RenderCommand.largestFirst(inputs).map(\.entityID) == ["b", "d", "a", "c", "gone"])
  }

  @Test func aFolderWithNoPhotosIsNamed() async throws {
    let folder = try Paths.temporaryFolder().appendingPathComponent("notes")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data("notes".utf8).write(to: folder.appendingPathComponent("README.md"))
    let cache = folder.deletingLastPathComponent().appendingPathComponent("cache").path
    let result = await runTool(["render", "--family", "avatar", "--cache", cache, folder.path])
    // Refused, and nothing made (issue 24: it exited 0 with three empty tables).
    #expect(result.status == 1)
    #expect(result.out.isEmpty)
    #expect(
      result.err == [
        "imgtool: render: \(folder.path) holds no photos: no file in it or its subfolders has "
          + "an image extension (`imgtool render --help` lists them)",
        "imgtool: render: no photo to render in \(folder.path); nothing was written",
      ])
    #expect(!FileManager.default.fileExists(atPath: cache))
    // A shard that happens to get none of a folder's photos is not a mistake: no warning.
    let photos = try photoFolder()
    for index in 1...8 {
      let shard = await runTool([
        "render", "--family", "avatar", "--cache", cache + "\(index)", "--quiet",
        "--shard", "\(index)/8", photos.appendingPathComponent("space").path,
      ])
      #expect(!shard.err.contains { $0.contains("holds no photos") })
    }
  }

  @Test func aSheetIsWrittenWhenAllIsUpToDateAndItsMistakesCostNoRender() async throws {
    let photos = try photoFolder()
    try FileManager.default.removeItem(at: photos.appendingPathComponent("broken.jpg"))
    let work = photos.deletingLastPathComponent()
    let cache = work.appendingPathComponent("cache").path
    // A sheet the savers cannot write is refused before anything is rendered.
    let bmp = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--sheet", work.path + "/s.bmp",
      photos.path,
    ])
    #expect(bmp.status == 64)
    #expect(
      bmp.err.first
        == "imgtool: invalid value '\(work.path)/s.bmp' for '--sheet': the extension must be "
        + ".png, .jpg, .jpeg or .webp")
    #expect(!FileManager.default.fileExists(atPath: cache))
    _ = await runTool(["render", "--family", "avatar", "--cache", cache, "--quiet", photos.path])
    // Everything up to date: the sheet is still drawn.
    let sheet = work.appendingPathComponent("sheet.png").path
    let upToDate = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--sheet", sheet, photos.path,
    ])
    #expect(upToDate.status == 0, "\(upToDate.err)")
    #expect(upToDate.out.first?.contains("0 rendered, 5 up to date") == true)
    let drawn = try VipsImage(file: sheet)
    #expect(drawn.width > 0 && drawn.height > 0)
    // A sheet in a folder that is not there is refused before the render, not after
    // it (issue 24): nothing rendered, the cache as it was.
    let held = try FileManager.default.contentsOfDirectory(atPath: cache).sorted()
    let nowhere = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--force", "--quiet", "--sheet",
      work.path + "/missing/sheet.png", photos.path,
    ])
    #expect(nowhere.status == 1)
    #expect(nowhere.out.isEmpty, "\(nowhere.out)")
    #expect(
      nowhere.err == [
        "imgtool: --sheet: cannot write \(work.path)/missing/sheet.png: the folder "
          + "\(work.path)/missing does not exist; create it first (mkdir -p \(work.path)/missing) "
          + "or give a path in a folder that does"
      ])
    #expect(try FileManager.default.contentsOfDirectory(atPath: cache).sorted() == held)
  }

  @Test func exportAndSheetsShowWhatTheCacheHolds() async throws {
    let photos = try photoFolder()
    let work = photos.deletingLastPathComponent()
    let cache = work.appendingPathComponent("cache").path
    let sheet = work.appendingPathComponent("sheet.png").path
    _ = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--quiet", "--sheet", sheet, photos.path,
    ])
    let sheetImage = try VipsImage(file: sheet)
    #expect(sheetImage.width > 5 * 256 && sheetImage.height > 64 + 128 + 256)
    let exported = work.appendingPathComponent("hubble.png").path
    let export = await runTool([
      "export", "--cache", cache, "--format", "avatar.medium", "--entity", "space/hubble.jpg",
      exported,
    ])
    #expect(export.status == 0)
    let image = try VipsImage(file: exported)
    #expect((image.width, image.height, image.bands) == (128, 128, 4))
    #expect(try image.pixel(x: 0, y: 0)[3] == 0)
    let missing = await runTool([
      "export", "--cache", cache, "--format", "avatar.medium", "--entity", "nope", exported,
    ])
    #expect(missing.status == 1)
    #expect(
      missing.err == [
        "imgtool: format 'avatar.medium' holds no entry for 'nope' (entity ids are paths "
          + "relative to the folder rendered; `imgtool inspect` lists them)"
      ])
    // The path of the photo as rendered, not its entity id: the id it ends with is named.
    let byPath = await runTool([
      "export", "--cache", cache, "--format", "avatar.medium", "--entity",
      photos.path + "/space/hubble.jpg", exported,
    ])
    #expect(
      byPath.err == [
        "imgtool: format 'avatar.medium' holds no entry for '\(photos.path)/space/hubble.jpg'; "
          + "did you mean 'space/hubble.jpg'? (entity ids are paths relative to the folder "
          + "rendered)"
      ])
    #expect(
      ExportCommand.hint("rocket.jpg", held: true, ids: [])
        == ": it fails its checksum; `imgtool render --force` of its photo draws it again")
    let one = work.appendingPathComponent("one.png").path
    let single = await runTool(["sheet", "--cache", cache, "--format", "avatar.small", one])
    #expect(single.status == 0 && single.out.first?.hasSuffix("5 entries") == true)
  }

  @Test func aManifestDefinesFormatsAndTheCache() async throws {
    let work = try Paths.temporaryFolder()
    let manifest = work.appendingPathComponent("imgtool.json")
    try Data(
      """
      {
        "cache": "tables",
        "defaults": { "scale": 1, "style": "bgr32" },
        "formats": [
          { "name": "card", "family": "cards", "size": [40, 30], "pipeline": "fill | roundedCorners(radius: 4)" },
          { "name": "card.grey", "family": "cards", "size": "20x15", "style": "gray8", "pipeline": "fill | grayscale" }
        ]
      }
      """.utf8
    ).write(to: manifest)
    let result = await runTool([
      "render", "--manifest", manifest.path, "--family", "cards", "--quiet",
      Paths.bundled("coffee.png"),
    ])
    #expect(result.status == 0, "\(result.err)")
    let card = try ImageTable(
      existingTableAt: work.appendingPathComponent("tables/card.table").path)
    #expect(card.format.style == .bgr32 && card.format.pixelWidth == 40)
    #expect(card.entries().map(\.entityID) == ["coffee.png"])
    let grey = try ImageTable(
      existingTableAt: work.appendingPathComponent("tables/card.grey.table").path)
    #expect(grey.format.style == .gray8)
    let printed = await runTool(["manifest", "--manifest", manifest.path])
    #expect(printed.out.joined(separator: "\n").contains("\"pipeline\": \"fill | grayscale\""))
  }

  @Test func aManifestFormatWithNoFamilyIsAFamilyOfItsOwn() async throws {
    let path = try Paths.temporaryFolder().appendingPathComponent("imgtool.json")
    try Data(#"{"formats": [{"name": "banner", "size": "40x20"}]}"#.utf8).write(to: path)
    let result = await runTool(["manifest", "--manifest", path.path])
    #expect(result.status == 0, "\(result.err)")
    #expect(result.out.joined(separator: "\n").contains("\"family\": \"banner\""), "\(result.out)")
  }

  @Test(arguments: [
    (
      #"{"formats": [{"name": "a", "family": "f", "size": "10x10"}, {"name": "b", "family": "f", "size": "ten"}]}"#,
      "formats[1].size: 'ten' must be \"WIDTHxHEIGHT\" in points"
    ),
    (
      #"{"formats": [{"name": "a", "family": "f", "size": "10x10", "sise": 3}]}"#,
      "formats[0].sise: unknown field; did you mean 'size'?"
    ),
    (
      #"{"formats": [{"name": "../a", "family": "f", "size": "10x10"}]}"#,
      "formats[0].name: use 1 to 128 letters"
    ),
    (
      #"{"formats": [{"name": "a", "family": "f", "size": "10x10", "style": "rgb"}]}"#,
      "formats[0].style: 'rgb' is not a style"
    ),
    (
      #"{"defaults": {"scale": 9}, "formats": [{"name": "a", "family": "f", "size": "10x10"}]}"#,
      "defaults.scale: 9 must be 1 to 8"
    ),
    (
      #"{"formats": [{"name": "a", "family": "f", "size": "10x10"}, {"name": "a", "family": "g", "size": "1x1"}]}"#,
      "formats[1].name: 'a' names another format already"
    ),
    (
      #"{"formats": [{"name": "a", "size": "10x10", "devices": ["phone"]}, {"name": "a", "size": "1x1", "devices": ["desktop"]}]}"#,
      "formats[1].name: 'a' names another format already"
    ),
    (#"{"formats": []}"#, "formats: must be a list of at least one format"),
    (
      #"{"formats": [{"name": "a", "family": "f", "size": "10x10", "maximumCount": true}]}"#,
      "formats[0].maximumCount: must be a whole number"
    ),
    ("{not json", "not valid JSON: line 1, column 2: "),
    ("{\"formats\": [\n  {\"name\": \"a\",, }]}", "not valid JSON: line 2, column 16: "),
  ])
  func manifestErrorsNameTheField(_ text: String, _ message: String) async throws {
    let path = try Paths.temporaryFolder().appendingPathComponent("imgtool.json")
    try Data(text.utf8).write(to: path)
    let result = await runTool(["manifest", "--manifest", path.path])
    #expect(result.status == 1)
    #expect(result.err.first?.contains(path.path + ": " + message) == true, "\(result.err)")
  }

  @Test func aPipelineMistakeInTheManifestNamesTheFile() async throws {
    let path = try Paths.temporaryFolder().appendingPathComponent("imgtool.json")
    try Data(
      #"{"formats": [{"name": "a", "family": "f", "size": "8x8"}, {"name": "b", "family": "f", "size": "9x9", "pipeline": "fill | frobnicate"}]}"#
        .utf8
    ).write(to: path)
    // Its own cache folder: this render used to make format a's table before finding b's
    // pipeline wrong, in the clone's .imgtool-cache when no --cache was given.
    let cache = path.deletingLastPathComponent().appendingPathComponent("cache").path
    let result = await runTool([
      "render", "--family", "f", "--manifest", path.path, "--cache", cache,
      Paths.bundled("coffee.png"),
    ])
    #expect(result.status == 1)
    // Refused: nothing written, not even the folder.
    #expect(!FileManager.default.fileExists(atPath: cache))
    #expect(
      result.err.first?.hasPrefix(
        "imgtool: \(path.path): formats[1].pipeline: format 'b': column 8: unknown processor "
          + "'frobnicate'; see 'imgtool processors'\n  fill | frobnicate\n         ^") == true,
      "\(result.err)")
  }

  @Test func anUnknownFamilyListsTheFamilies() async {
    let result = await runTool(["render", "--family", "avatr", Paths.bundled("coffee.png")])
    #expect(result.status == 64)
    #expect(
      result.err.first
        == "imgtool: invalid value 'avatr' for '--family': built-in has the families: avatar, photo"
    )
  }

  /// `imgtool manifest > imgtool.json`: the shell makes the file (empty) before imgtool
  /// runs, so an empty imgtool.json must count as none; an empty --manifest is an error.
  @Test func anEmptyImgtoolJSONCountsAsNone() async throws {
    let work = try Paths.temporaryFolder()
    let file = work.appendingPathComponent("imgtool.json").path
    #expect(FileManager.default.createFile(atPath: file, contents: Data()))
    let printed = try runExecutable(["manifest"], in: work)
    #expect(printed.status == 0, "\(printed.err)")
    #expect(printed.out.contains(#""name": "avatar.small""#))
    let explicit = await runTool([
      "manifest", "--manifest", work.appendingPathComponent("imgtool.json").path,
    ])
    #expect(explicit.status == 1)
    #expect(
      explicit.err.first
        == "imgtool: \(work.path)/imgtool.json: not valid JSON: the file is empty (0 bytes)")
  }

  /// As a user runs it: defaults found in the current folder.
  @Test func defaultsComeFromTheCurrentFolder() throws {
    let work = try Paths.temporaryFolder()
    try FileManager.default.copyItem(
      atPath: Paths.bundled("chelsea.png"), toPath: work.appendingPathComponent("cat.png").path)
    let plain = try runExecutable(["render", "--family", "avatar", "--quiet", "cat.png"], in: work)
    #expect(plain.status == 0, "\(plain.err)")
    #expect(
      FileManager.default.fileExists(
        atPath: work.appendingPathComponent(".imgtool-cache/avatar.large.table").path))
    try Data(
      #"{"cache": "elsewhere", "formats": [{"name": "tiny", "family": "t", "size": "8x8", "pipeline": "fill"}]}"#
        .utf8
    )
    .write(to: work.appendingPathComponent("imgtool.json"))
    let local = try runExecutable(["render", "--family", "t", "--quiet", "cat.png"], in: work)
    #expect(local.status == 0, "\(local.err)")
    #expect(
      FileManager.default.fileExists(
        atPath: work.appendingPathComponent("elsewhere/tiny.table").path))
    let inspect = try runExecutable(["inspect", "--summary"], in: work)
    #expect(inspect.out.contains("tiny (family t), 16x16 bgra32, 1 of 1000 entries"))
  }
}

import Foundation
import TestFixtures
import Testing
import Vips

@testable import ImageTables
@testable import ImageToolCLI

/// What a newcomer meets in the first hour (issue 12): the render summary, eviction,
/// the folder walk, required options, help, errors, read-only commands and --wait.
@Suite("A newcomer's first hour")
struct FirstHourTests {

  /// A manifest file of one format.
  private func manifest(
    _ format: String, background: String = "#ffffff", in folder: URL
  ) throws -> String {
    let path = folder.appendingPathComponent("imgtool.json").path
    try #"{ "background": "\#(background)", "formats": [ \#(format) ] }"#
      .write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// Every file of a folder, by name, with its bytes.
  private func contents(of folder: String) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
      files[name] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
    }
    return files
  }

  private func json(_ lines: [String]) throws -> [String: Any] {
    try #require(
      try JSONSerialization.jsonObject(with: Data(lines.joined().utf8)) as? [String: Any])
  }

  // MARK: The summary

  @Test func theSummaryCountsPhotosAndEntriesWithRightPluralsAndNoRateWhenIdle() async throws {
    let (folder, cache) = try copiedPhotos(["chelsea.png"])
    let first = await runTool(["render", "--family", "avatar", "--cache", cache, folder.path])
    #expect(first.status == 0)
    let line = try #require(first.out.first)
    #expect(
      line.hasPrefix(
        "render: family avatar: 1 photo: 1 rendered, 0 up to date, 0 failed; 3 entries written, in "
      ), "\(line)")
    #expect(line.hasSuffix(" photos/s)"), "\(line)")
    #expect(first.out.dropFirst().first?.hasPrefix("  avatar.small: 1 entry of 1000, ") == true)
    // Everything up to date: nothing rendered, so no rate.
    let again = await runTool(["render", "--family", "avatar", "--cache", cache, folder.path])
    let idle = try #require(again.out.first)
    #expect(
      idle.hasPrefix(
        "render: family avatar: 1 photo: 0 rendered, 1 up to date, 0 failed; 0 entries written, in "
      ), "\(idle)")
    #expect(!idle.contains("/s"), "\(idle)")
    let summary = try json(
      await runTool(["render", "--family", "avatar", "--cache", cache, "--json", folder.path]).out)
    #expect(summary["rendered"] as? Int == 0 && summary["skipped"] as? Int == 1)
    #expect(summary["imagesPerSecond"] is NSNull)
  }

  @Test func evictionIsCountedPerFormatAndWarnedAbout() async throws {
    let (folder, cache) = try copiedPhotos(["astronaut.png", "chelsea.png"])
    let (others, _) = try copiedPhotos(["coffee.png", "hubble.jpg", "rocket.jpg"])
    let manifestPath = try manifest(
      #"{ "name": "tiny", "family": "t", "size": "8x8", "scale": 1, "maximumCount": 2, "pipeline": "fill" }"#,
      in: folder.deletingLastPathComponent())
    let first = await runTool([
      "render", "--family", "t", "--manifest", manifestPath, "--cache", cache, "--quiet",
      folder.path,
    ])
    #expect(first.status == 0 && first.err.isEmpty, "\(first.err)")
    // Three more photos into a table of 2 that is full: the first 2 of them push out
    // the earlier render's entries; the third is left out, not rendered over them.
    let result = await runTool([
      "render", "--family", "t", "--manifest", manifestPath, "--cache", cache, "--jobs", "1",
      "--json", others.path,
    ])
    #expect(result.status == 0)
    let summary = try json(result.out)
    #expect(summary["rendered"] as? Int == 2)
    #expect(summary["evicted"] as? Int == 2)
    #expect(summary["leftOut"] as? Int == 1)
    let tables = try #require(summary["tables"] as? [[String: Any]])
    #expect(tables.first?["entries"] as? Int == 2)
    #expect(tables.first?["capacity"] as? Int == 2)
    #expect(tables.first?["evicted"] as? Int == 2)
    #expect(tables.first?["leftOut"] as? Int == 1)
    #expect(
      result.err == [
        "imgtool: warning: tiny: 1 photo of 3 left out: maximumCount is 2, so the table keeps "
          + "the first 2 in the order found and the rest are not rendered into it; raise "
          + "maximumCount of format 'tiny' (or defaults.maximumCount) in \(manifestPath) to 3 to "
          + "keep them all (the entries it holds are kept)",
        "imgtool: warning: tiny: 2 entries evicted: the table keeps at most 2; raise "
          + "maximumCount of format 'tiny' (or defaults.maximumCount) in \(manifestPath) to keep "
          + "them all (the entries it holds are kept)",
      ])
    let table = try ImageTable(existingTableAt: cache + "/tiny.table")
    #expect(Set(table.entries().map(\.entityID)) == ["coffee.png", "hubble.jpg"])
    // Rendering the same photos again writes nothing and evicts nothing: still the
    // first 2, the third still left out.
    let text = await runTool([
      "render", "--family", "t", "--manifest", manifestPath, "--cache", cache, others.path,
    ])
    #expect(
      text.out.first?.hasPrefix(
        "render: family t: 3 photos: 0 rendered, 2 up to date, 0 failed, 1 left out; "
          + "0 entries written") == true, "\(text.out)")
    #expect(
      text.out.contains { $0.hasPrefix("  tiny: 2 entries of 2, ") && $0.hasSuffix(", 1 left out") }
    )
    #expect(text.err.count == 1 && text.err.first?.contains("1 photo of 3 left out") == true)
  }

  @Test func aPhotoThatFailsTakesNoPlaceOfMaximumCount() async throws {
    // maximumCount 2, two good photos and a bad one first in the order found: the bad
    // one is named, and both good ones are rendered (it gave its place to the next).
    let (folder, cache) = try copiedPhotos(["astronaut.png", "chelsea.png"])
    let bad = folder.appendingPathComponent("0-bad.jpg").path
    try Data("not a photo at all\n".utf8).write(to: URL(fileURLWithPath: bad))
    let manifestPath = try manifest(
      #"{ "name": "tiny", "family": "t", "size": "8x8", "scale": 1, "maximumCount": 2, "pipeline": "fill" }"#,
      in: folder.deletingLastPathComponent())
    let arguments = [
      "render", "--family", "t", "--manifest", manifestPath, "--cache", cache, "--json",
      folder.path,
    ]
    let result = await runTool(arguments)
    #expect(result.status == 1)
    #expect(result.err.isEmpty, "\(result.err)")
    let summary = try json(result.out)
    #expect(summary["rendered"] as? Int == 2)
    #expect(summary["leftOut"] as? Int == 0)
    let failures = try #require(summary["failed"] as? [[String: Any]])
    #expect(failures.count == 1)
    #expect(failures.first?["path"] as? String == bad)
    #expect(
      failures.first?["error"] as? String == "not an image: no loader recognises its contents")
    let table = try ImageTable(existingTableAt: cache + "/tiny.table")
    #expect(Set(table.entries().map(\.entityID)) == ["astronaut.png", "chelsea.png"])
    // Again: nothing written, nothing evicted, the bad one named again.
    let again = try json(await runTool(arguments).out)
    #expect(again["rendered"] as? Int == 0 && again["skipped"] as? Int == 2)
    #expect(again["written"] as? Int == 0 && again["evicted"] as? Int == 0)
    #expect(again["leftOut"] as? Int == 0)
    #expect((again["failed"] as? [[String: Any]])?.count == 1)
  }

  @Test func withTheBuiltInManifestTheWarningSaysHowToStartOne() {
    let stats = TableStats(
      format: "avatar.small", entries: 1000, capacity: 1000, allocatedEntries: 1000,
      bytesPerEntry: 4096, rawBytesPerEntry: 4096, fileBytes: 4_096_000)
    let summary = RenderCommand.Summary(
      family: "avatar", photos: 2016, rendered: 2016, upToDate: 0, failed: [],
      entriesWritten: 2016, seconds: 10,
      tables: [.init(format: "avatar.small", stats: stats, evicted: 1016)], manifest: "built-in")
    #expect(
      summary.warnings == [
        "imgtool: warning: avatar.small: 1016 entries evicted: the table keeps at most 1000; "
          + "raise maximumCount of format 'avatar.small' (or defaults.maximumCount) in a manifest "
          + "(the built-in one is in use; 'imgtool manifest > imgtool.json' starts one) to keep "
          + "them all (the entries it holds are kept)"
      ])
    #expect(summary.lines.last == "  avatar.small: 1000 entries of 1000, 3.9 MiB, 1016 evicted")
  }

  // MARK: The folder walk

  @Test func theFolderWalkTakesEveryTrustedLoaderSuffixHEICAndAVIFIncluded() async throws {
    let suffixes = try Vips.trustedLoaderSuffixes()
    #expect(
      ["jpg", "jpeg", "png", "webp", "gif", "tif", "tiff", "heic", "heif", "avif"]
        .allSatisfy(suffixes.contains), "\(suffixes.sorted())")
    // Loaders blocked for untrusted input give no suffix.
    #expect(!suffixes.contains("ppm") && !suffixes.contains("svg") && !suffixes.contains("pdf"))
    let (folder, cache) = try copiedPhotos(["chelsea.heic", "chelsea.avif", "chelsea.gif"])
    try Data("notes".utf8).write(to: folder.appendingPathComponent("README.md"))
    let result = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--json", folder.path,
    ])
    #expect(result.status == 0, "\(result.err)")
    #expect(try json(result.out)["rendered"] as? Int == 3)
    let table = try ImageTable(existingTableAt: cache + "/avatar.small.table")
    #expect(
      Set(table.entries().map(\.entityID)) == ["chelsea.avif", "chelsea.gif", "chelsea.heic"])
  }

  // MARK: Options, help and errors

  @Test func requiredOptionsAreShownAndReportedAsRequired() async throws {
    // A folder of its own: were the option not required, nothing would land in the
    // working directory (or the repository).
    let (folder, cache) = try copiedPhotos(["chelsea.png"])
    let missing = await runTool(["render", "--cache", cache, folder.path])
    #expect(missing.status == 64)
    #expect(missing.err.first == "imgtool: missing required option '--family <name>'")
    #expect(!FileManager.default.fileExists(atPath: cache))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["chelsea.png"])
    let help = await runTool(["help", "render"])
    let usage = try #require(
      help.out.first?.split(separator: "\n").first { $0.hasPrefix("USAGE:") })
    #expect(usage.hasPrefix("USAGE: imgtool render --family <name> [--force]"), "\(usage)")
    #expect(help.out.joined().contains("(required) The family to render"))
    for (command, option) in [
      ("export", "--format <name>"), ("browse", "--out <file>"), ("apply", "--pipeline <spec>"),
    ] {
      let text = await runTool(["help", command]).out.joined()
      #expect(text.contains(" \(option) ") && !text.contains("[\(option)]"), "\(command)")
    }
  }

  @Test func helpHelpWorks() async {
    let result = await runTool(["help", "help"])
    #expect(result.status == 0)
    #expect(result.out.joined().contains("USAGE: imgtool help [<subcommand>]"))
    #expect(await runTool(["--help"]).out.joined().contains("\n  help "))
  }

  @Test func everyErrorHasTheSamePrefix() async throws {
    let folder = try Fixtures.temporaryFolder()
    let failures = [
      await runTool(["inf"]), await runTool(["render"]),
      await runTool(["info", folder.appendingPathComponent("none.jpg").path]),
      await runTool(["apply", "--pipeline", "fil", "--size", "8x8", "a.png", "b.png"]),
      await runTool(["manifest", "--check", folder.appendingPathComponent("none.json").path]),
    ]
    for failure in failures {
      #expect(failure.status != 0)
      let first = try #require(failure.err.first)
      #expect(first.hasPrefix("imgtool: "), "\(failure.err)")
      #expect(!failure.err.contains { $0.hasPrefix("Error") }, "\(failure.err)")
    }
  }

  @Test func sheetRefusesAFormatAndAFamilyTogether() async {
    let result = await runTool([
      "sheet", "--format", "avatar.small", "--family", "photo", "/tmp/never.png",
    ])
    #expect(result.status == 64)
    #expect(
      result.err.first == "imgtool: '--format' and '--family' cannot be given together; give one")
    let neither = await runTool(["sheet", "/tmp/never.png"])
    #expect(neither.status == 64)
    #expect(
      neither.err.first
        == "imgtool: missing required option: give '--format <name>' or '--family <name>'")
  }

  @Test func aCacheFolderGivenTwiceIsAnError() async {
    for command in ["inspect", "verify"] {
      let result = await runTool([command, "--cache", "/tmp/a", "/tmp/b"])
      #expect(result.status == 64)
      #expect(
        result.err.first
          == "imgtool: '--cache' and '<cache-dir>' cannot be given together; give one", "\(command)"
      )
    }
  }

  @Test func browsingPastTheLastPhotoIsAnError() async throws {
    let (folder, cache) = try copiedPhotos(["chelsea.png", "coffee.png", "rocket.jpg"])
    #expect(
      await runTool(["render", "--family", "photo", "--cache", cache, folder.path]).status == 0)
    let output = folder.appendingPathComponent("frame.png").path
    let result = await runTool(["browse", "--cache", cache, "--index", "9", "--out", output])
    #expect(result.status == 64)
    #expect(
      result.err.first
        == "imgtool: invalid value '9' for '--index': family 'photo' holds 3 photos, so the "
        + "index is from 0 to 2")
    #expect(!FileManager.default.fileExists(atPath: output))
    let last = await runTool(["browse", "--cache", cache, "--index", "2", "--out", output])
    #expect(last.status == 0)
    #expect(last.out.first?.contains("photo 3 of 3 (rocket.jpg)") == true, "\(last.out)")
  }

  @Test func manifestCheckValidatesEveryPipeline() async throws {
    let folder = try Fixtures.temporaryFolder()
    let bad = try manifest(
      #"{ "name": "disc", "family": "d", "size": "8x8", "pipeline": "fill | circel" }"#,
      in: folder)
    // Printing it does not build the pipelines; checking does.
    #expect(await runTool(["manifest", "--manifest", bad]).status == 0)
    let checked = await runTool(["manifest", "--check", bad])
    #expect(checked.status == 1)
    #expect(checked.err.count == 1)
    #expect(checked.err.first?.hasPrefix("imgtool: \(bad): format 'disc': pipeline: ") == true)
    #expect(checked.err.first?.contains("'circle'") == true, "\(checked.err)")
    let good = try manifest(
      #"{ "name": "disc", "family": "d", "size": "8x8", "pipeline": "fill | circle" }"#,
      in: folder)
    let valid = await runTool(["manifest", "--check", good])
    #expect(valid.status == 0)
    #expect(valid.out == ["\(good): valid: 1 format in 1 family, every pipeline builds"])
    let both = await runTool(["manifest", "--check", good, "--manifest", good])
    #expect(both.status == 64)
  }

  @Test func exportToJPEGFlattensOntoTheManifestBackground() async throws {
    let (folder, cache) = try copiedPhotos(["chelsea.png"])
    let manifestPath = try manifest(
      #"{ "name": "disc", "family": "d", "size": "32x32", "scale": 1, "style": "bgra32", "pipeline": "fill | circle" }"#,
      background: "#00ff00", in: folder.deletingLastPathComponent())
    let options = ["--manifest", manifestPath, "--cache", cache]
    #expect(await runTool(["render", "--family", "d"] + options + [folder.path]).status == 0)
    let jpeg = folder.appendingPathComponent("disc.jpg").path
    let png = folder.appendingPathComponent("disc.png").path
    for output in [jpeg, png] {
      let result = await runTool(
        ["export", "--format", "disc", "--entity", "chelsea.png"] + options + [output])
      #expect(result.status == 0, "\(result.err)")
    }
    // The corner is transparent in the table: green in the JPEG, not black.
    let corner = try VipsImage(file: jpeg).pixel(x: 0, y: 0)
    #expect(corner[0] < 40 && corner[1] > 215 && corner[2] < 40, "\(corner)")
    #expect(try VipsImage(file: png).pixel(x: 0, y: 0)[3] == 0)
    // The middle is the cat, in both, up to what JPEG's lossy coding (its chroma
    // subsampling on a 32x32 picture) changes: measured 187,157,105 against 194,150,114,
    // so 7, 7 and 9 (libvips 8.14, Debian bookworm).
    let middle = try VipsImage(file: jpeg).pixel(x: 16, y: 16)
    let original = try VipsImage(file: png).pixel(x: 16, y: 16)
    #expect(zip(middle, original).allSatisfy { abs($0 - $1) <= 10 }, "\(middle) \(original)")
  }

  // MARK: Readers and writers

  @Test func commandsThatOnlyReadNeedNoLock() async throws {
    let (folder, cache) = try copiedPhotos(["chelsea.png", "coffee.png"])
    #expect(
      await runTool(["render", "--family", "photo", "--cache", cache, folder.path]).status == 0)
    // A render of one family leaves the others' tables alone (none is made).
    #expect(!FileManager.default.fileExists(atPath: cache + "/avatar.small.table"))
    let written = try contents(of: cache)
    // Another writer holds the family's tables.
    let locks = try ["photo.thumb", "photo.screen"].map { try WriterLockHolder(cache, $0) }
    do {
      let upToDate = await runTool(["render", "--family", "photo", "--cache", cache, folder.path])
      #expect(upToDate.status == 0, "\(upToDate.err)")
      #expect(upToDate.out.first?.contains("0 rendered, 2 up to date") == true)
      let frame = folder.appendingPathComponent("frame.png").path
      let browse = await runTool(["browse", "--cache", cache, "--out", frame])
      #expect(browse.status == 0, "\(browse.err)")
      // Something to write needs the lock: refused at once, saying how to wait.
      let forced = await runTool([
        "render", "--family", "photo", "--cache", cache, "--force", folder.path,
      ])
      // Nothing done: the status says so (sysexits' EX_TEMPFAIL), not "some input failed".
      #expect(forced.status == 75)
      #expect(
        forced.err.first?.hasSuffix(
          "another process is writing this cache; run again with --wait to wait for it, or "
            + "render into another --cache") == true, "\(forced.err)")
      // Nothing written: every file of the cache holds the bytes it held before, but the
      // `.shared` files, whose reader table every reader writes by design (as LMDB's
      // readers write its lock file): its pins and use stamps.
      #expect(
        try contents(of: cache).filter { !$0.key.hasSuffix(".shared") }
          == written.filter { !$0.key.hasSuffix(".shared") })
      #expect(try contents(of: cache).keys.sorted() == written.keys.sorted())
    }
    withExtendedLifetime(locks) {}
  }

  /// A cache this user may only read (another user's, or on a read-only mount): an
  /// up-to-date render and `browse` still work, and not one byte of the cache changes,
  /// reader tables included (they are mapped copy-on-write). Root may write anything, so
  /// root reads as `nobody`: the launcher, the engine, the photos and the cache are
  /// copied to a folder `nobody` may enter, wherever the clone is (under `/root`,
  /// `nobody` reaches neither the build folder nor the scratch folder).
  @Test func aCacheThisUserCannotWriteIsStillRead() async throws {
    try await withFolderEveryoneReads { work in
      let program = try copiedTool(into: work)
      let folder = try photosEveryoneReads(["chelsea.png", "coffee.png"], in: work)
      let cache = work.appendingPathComponent("cache").path
      let rendered = await runTool(["render", "--family", "photo", "--cache", cache, folder.path])
      #expect(rendered.status == 0, "\(rendered.err)")
      let before = try contents(of: cache)
      let out = work.appendingPathComponent("out")
      try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
      try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: out.path)
      for name in before.keys {
        try FileManager.default.setAttributes(
          [.posixPermissions: 0o444], ofItemAtPath: cache + "/" + name)
      }
      try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: cache)
      defer {
        try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: cache)
      }
      let upToDate = try runAsAnotherUser(
        ["render", "--family", "photo", "--cache", cache, folder.path], program: program)
      #expect(upToDate.status == 0, "\(upToDate.err)")
      #expect(upToDate.out.contains("0 rendered, 2 up to date"), "\(upToDate.out)")
      let frame = out.appendingPathComponent("frame.png").path
      let browse = try runAsAnotherUser(
        ["browse", "--cache", cache, "--out", frame], program: program)
      #expect(browse.status == 0, "\(browse.err)")
      #expect(FileManager.default.fileExists(atPath: frame))
      #expect(try contents(of: cache) == before)
    }
  }

  // Were the child never to say it waits, the read would block: the limit ends it.
  @Test(.timeLimit(.hangGuard)) func renderWaitWaitsForTheOtherWriter() async throws {
    let (folder, cache) = try copiedPhotos(["chelsea.png"])
    var writer: WriterLockHolder? = try WriterLockHolder(cache, "avatar.small")
    let process = Process()
    process.executableURL = Paths.executable
    process.arguments = ["render", "--family", "avatar", "--cache", cache, "--wait", folder.path]
    process.standardOutput = FileHandle.nullDevice
    let err = Pipe()
    process.standardError = err
    try process.run()
    // The child says it waits once it found the table locked, then blocks on the lock.
    let waiting = "imgtool: \(cache)/avatar.small.lock: another process is writing this cache; "
    var said = ""
    while !said.contains(waiting) {
      let chunk = err.fileHandleForReading.availableData
      if chunk.isEmpty { break }  // the child ended without waiting
      said += String(decoding: chunk, as: UTF8.self)
    }
    #expect(said.contains(waiting + "waiting for it\n"), "\(said)")
    // Having said so, it can only go on once the lock is let go.
    #expect(process.isRunning)
    writer = nil  // the other writer finishes
    let rest = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(said)\(String(decoding: rest, as: UTF8.self))")
    let table = try ImageTable(existingTableAt: cache + "/avatar.small.table")
    #expect(table.entries().map(\.entityID) == ["chelsea.png"])
    withExtendedLifetime(writer) {}
  }
}

/// Holds a table's writer lock as another writer would: `flock` on its `.lock` file.
final class WriterLockHolder {
  private let descriptor: Int32

  init(_ cache: String, _ format: String) throws {
    try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
    descriptor = open(cache + "/\(format).lock", O_RDWR | O_CREAT, 0o644)
    guard descriptor >= 0, flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
      throw CocoaError(.fileLocking)
    }
  }

  deinit {
    flock(descriptor, LOCK_UN)
    close(descriptor)
  }
}

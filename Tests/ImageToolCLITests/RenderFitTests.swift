import Foundation
import TestFixtures
import Testing

@testable import ImageTables
@testable import ImageToolCLI

/// A render of more photos than a format keeps never thrashes, and a manifest's
/// maximumCount changes in place (issue 21).
@Suite("imgtool render: what fits, and maximumCount in place")
struct RenderFitTests {
  static let photos = ["astronaut.png", "chelsea.png", "coffee.png", "hubble.jpg", "rocket.jpg"]

  /// A manifest of family `t`: `t.small` keeping `small`, `t.big` keeping `big`.
  private func manifest(small: Int, big: Int, smallSize: String = "8x8", in folder: URL) throws
    -> String
  {
    let path = folder.appendingPathComponent("imgtool.json").path
    try """
    { "formats": [
      { "name": "t.small", "family": "t", "size": "\(smallSize)", "scale": 1, "maximumCount": \(small), "pipeline": "fill" },
      { "name": "t.big", "family": "t", "size": "16x16", "scale": 1, "maximumCount": \(big), "pipeline": "fit" }
    ] }
    """.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  private func json(_ lines: [String]) throws -> [String: Any] {
    try #require(
      try JSONSerialization.jsonObject(with: Data(lines.joined().utf8)) as? [String: Any])
  }

  private func render(_ manifest: String, _ cache: String, _ folder: URL) async -> (
    status: Int32, out: [String], err: [String]
  ) {
    await runTool([
      "render", "--family", "t", "--manifest", manifest, "--cache", cache, "--json", folder.path,
    ])
  }

  /// The entity ids a table holds, and whether each serves exactly the bytes it held.
  private func ids(_ cache: String, _ format: String) throws -> [String] {
    try ImageTable(existingTableAt: cache + "/\(format).table").entries().map(\.entityID).sorted()
  }

  @Test func aFormatKeepsTheFirstPhotosAndARenderAgainWritesNothing() async throws {
    let (folder, cache) = try copiedPhotos(Self.photos)
    let manifestPath = try manifest(small: 3, big: 10, in: folder.deletingLastPathComponent())
    let first = await render(manifestPath, cache, folder)
    #expect(first.status == 0)
    let summary = try json(first.out)
    // All 5 into t.big, the first 3 in the order found into t.small.
    #expect(summary["rendered"] as? Int == 5 && summary["written"] as? Int == 8)
    #expect(summary["evicted"] as? Int == 0 && summary["leftOut"] as? Int == 2)
    #expect(try ids(cache, "t.small") == Array(Self.photos.prefix(3)))
    #expect(try ids(cache, "t.big") == Self.photos)
    #expect(
      first.err == [
        "imgtool: warning: t.small: 2 photos of 5 left out: maximumCount is 3, so the table "
          + "keeps the first 3 in the order found and the rest are not rendered into it; raise "
          + "maximumCount of format 't.small' (or defaults.maximumCount) in \(manifestPath) to 5 "
          + "to keep them all (the entries it holds are kept)"
      ])
    for _ in 0..<2 {
      let again = await render(manifestPath, cache, folder)
      let summary = try json(again.out)
      #expect(summary["written"] as? Int == 0 && summary["rendered"] as? Int == 0)
      #expect(summary["skipped"] as? Int == 5 && summary["evicted"] as? Int == 0)
      #expect(summary["leftOut"] as? Int == 2)
      #expect(again.err == first.err)
      #expect(try ids(cache, "t.small") == Array(Self.photos.prefix(3)))
    }
    // --force redraws what fits, and still leaves the rest out.
    let forced = try json(
      await runTool([
        "render", "--family", "t", "--manifest", manifestPath, "--cache", cache, "--json",
        "--force", folder.path,
      ]).out)
    #expect(forced["written"] as? Int == 8 && forced["evicted"] as? Int == 0)
  }

  @Test func raisingMaximumCountKeepsEveryEntryAndWritesNothing() async throws {
    let (folder, cache) = try copiedPhotos(Self.photos)
    let work = folder.deletingLastPathComponent()
    let manifestPath = try manifest(small: 5, big: 5, in: work)
    #expect(try json(await render(manifestPath, cache, folder).out)["written"] as? Int == 10)
    let before = try ImageTable(existingTableAt: cache + "/t.small.table")
    let pixels = Dictionary(
      uniqueKeysWithValues: before.entries().map { entry in
        (
          entry.entityID,
          before.bitmap(entityID: entry.entityID, sourceVersion: entry.sourceVersion).map {
            Array($0.bytes)
          }
        )
      })
    _ = try manifest(small: 8, big: 6, in: work)
    let raised = await render(manifestPath, cache, folder)
    let summary = try json(raised.out)
    #expect(summary["written"] as? Int == 0 && summary["skipped"] as? Int == 5)
    let tables = try #require(summary["tables"] as? [[String: Any]])
    #expect(tables.map { $0["entries"] as? Int } == [5, 5])
    #expect(tables.map { $0["capacity"] as? Int } == [8, 6])
    // Reported once per table, naming the format and the field.
    #expect(
      raised.err == [
        "imgtool: warning: table 't.small': maximumCount 5 -> 8; kept 5 entries",
        "imgtool: warning: table 't.big': maximumCount 5 -> 6; kept 5 entries",
      ])
    // Every entry is still served, with the same pixels.
    let after = try ImageTable(existingTableAt: cache + "/t.small.table")
    #expect(after.format.maximumCount == 8)
    for entry in after.entries() {
      let bitmap = try #require(
        after.bitmap(entityID: entry.entityID, sourceVersion: entry.sourceVersion))
      #expect(Array(bitmap.bytes) == pixels[entry.entityID] ?? nil)
    }
    #expect(after.entries().count == 5)
    // The next render only reads.
    let quiet = await render(manifestPath, cache, folder)
    let quietSummary = try json(quiet.out)
    #expect(quiet.err.isEmpty && quietSummary["written"] as? Int == 0)
  }

  @Test func raisingMaximumCountRendersOnlyThePhotosLeftOut() async throws {
    let (folder, cache) = try copiedPhotos(Self.photos)
    let work = folder.deletingLastPathComponent()
    let manifestPath = try manifest(small: 3, big: 5, in: work)
    _ = await render(manifestPath, cache, folder)
    _ = try manifest(small: 5, big: 5, in: work)
    let raised = try json(await render(manifestPath, cache, folder).out)
    #expect(raised["rendered"] as? Int == 2 && raised["written"] as? Int == 2)
    #expect(raised["leftOut"] as? Int == 0 && raised["evicted"] as? Int == 0)
    #expect(try ids(cache, "t.small") == Self.photos)
  }

  @Test func shrinkingMaximumCountEvictsTheLeastRecentlyUsedAndSaysSo() async throws {
    let (folder, cache) = try copiedPhotos(Self.photos)
    let work = folder.deletingLastPathComponent()
    let manifestPath = try manifest(small: 5, big: 5, in: work)
    _ = await runTool([
      "render", "--family", "t", "--manifest", manifestPath, "--cache", cache, "--jobs", "1",
      folder.path,
    ])
    _ = try manifest(small: 2, big: 5, in: work)
    let shrunk = await render(manifestPath, cache, folder)
    #expect(
      shrunk.err.first
        == "imgtool: warning: table 't.small': maximumCount 5 -> 2; kept 2 entries, evicted the 3 "
        + "least recently used to fit maximumCount")
    let summary = try json(shrunk.out)
    // The first 2 in the order found are what the table keeps now.
    #expect(
      try ids(cache, "t.small") == Array(Self.photos.prefix(2)), "\(shrunk.err) \(shrunk.out)")
    #expect(summary["leftOut"] as? Int == 3)
  }

  @Test func aChangedPixelFieldIsWarnedAboutAndRerenders() async throws {
    let (folder, cache) = try copiedPhotos(Array(Self.photos.prefix(2)))
    let work = folder.deletingLastPathComponent()
    let manifestPath = try manifest(small: 5, big: 5, in: work)
    _ = await render(manifestPath, cache, folder)
    _ = try manifest(small: 5, big: 5, smallSize: "9x8", in: work)
    let changed = await render(manifestPath, cache, folder)
    #expect(
      changed.err == [
        "imgtool: warning: table 't.small' was invalidated (changed: width); recreated empty: "
          + "its entries are rendered again"
      ])
    #expect(try json(changed.out)["written"] as? Int == 2)
  }
}

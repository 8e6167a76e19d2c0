import Foundation
import Testing

@testable import ImageTables

@Suite("Image tables")
struct ImageTableTests {
  @Test func writesAndReadsBackExactPixels() throws {
    let table = try ImageTable(format: makeFormat(), directory: Folder.make())
    try writeEntry(table, "people/ada.jpg")
    let bitmap = try #require(table.bitmap(entityID: "people/ada.jpg", sourceVersion: "v1"))
    #expect((bitmap.width, bitmap.height, bitmap.bytesPerRow) == (8, 8, 64))
    #expect(holdsExpectedPixels(bitmap))
    #expect(bitmap.row(1).count == 32)
    // The bytes are the style's layout: B, G, R, A at the first pixel.
    let first = expectedPixel(entityID: "people/ada.jpg", sourceVersion: "v1", x: 0, y: 0)
    #expect(Array(bitmap.bytes.prefix(4)) == [first.blue, first.green, first.red, 255])
    #expect(table.bitmap(entityID: "people/bob.jpg", sourceVersion: "v1") == nil)
  }

  @Test func smallImagesAreStoredSmallerThanTheSlot() throws {
    let table = try ImageTable(format: makeFormat(), directory: Folder.make())
    try writeEntry(table, "tiny", width: 3, height: 5)
    let bitmap = try #require(table.bitmap(entityID: "tiny", sourceVersion: "v1"))
    #expect((bitmap.width, bitmap.height) == (3, 5))
    #expect(holdsExpectedPixels(bitmap))
    #expect(throws: ImageTableError.self) { try writeEntry(table, "big", width: 9, height: 8) }
  }

  @Test func aChangedSourceVersionIsAMiss() throws {
    let table = try ImageTable(format: makeFormat(), directory: Folder.make())
    try writeEntry(table, "a", "v1")
    #expect(table.bitmap(entityID: "a", sourceVersion: "v2") == nil)
    #expect(!table.contains(entityID: "a", sourceVersion: "v2"))
    try writeEntry(table, "a", "v2")
    #expect(table.bitmap(entityID: "a", sourceVersion: "v1") == nil)
    #expect(holdsExpectedPixels(try #require(table.bitmap(entityID: "a", sourceVersion: "v2"))))
    #expect(table.stats.entries == 1)
  }

  /// The version an entry holds, looked up by its id alone: in the writer and in a
  /// read-only instance of another open; nil for an id never written and once deleted.
  @Test func theSourceVersionOfAnIdIsTheOneItsEntryHolds() throws {
    let folder = try Folder.make()
    let table = try ImageTable(format: makeFormat(), directory: folder)
    #expect(table.sourceVersion(entityID: "a") == nil)
    try writeEntry(table, "a", "etag:\"6b0f\"")
    try writeEntry(table, "b", "v1")
    #expect(table.sourceVersion(entityID: "a") == "etag:\"6b0f\"")
    #expect(table.sourceVersion(entityID: "b") == "v1")
    #expect(table.sourceVersion(entityID: "c") == nil)
    try writeEntry(table, "a", "etag:\"7c1e\"")
    #expect(table.sourceVersion(entityID: "a") == "etag:\"7c1e\"")
    let reader = try ImageTable(
      format: makeFormat(), directory: folder, options: .init(readOnly: true))
    #expect(reader.sourceVersion(entityID: "a") == "etag:\"7c1e\"")
    #expect(
      reader.sourceVersion(entityID: "a").flatMap {
        reader.bitmap(entityID: "a", sourceVersion: $0)
      }.map(holdsExpectedPixels) == true)
    table.delete(entityID: "a")
    #expect(table.sourceVersion(entityID: "a") == nil)
    #expect(reader.sourceVersion(entityID: "a") == nil)
    #expect(table.sourceVersion(entityID: "b") == "v1")
  }

  @Test func leastRecentlyUsedGoesFirstAndTheCountIsExact() throws {
    let table = try ImageTable(format: makeFormat(maximumCount: 3), directory: Folder.make())
    for id in ["a", "b", "c"] { try writeEntry(table, id) }
    _ = table.bitmap(entityID: "a", sourceVersion: "v1")  // a is now the newest
    try writeEntry(table, "d")
    #expect(table.entries().map(\.entityID) == ["c", "a", "d"])
    try writeEntry(table, "e")
    #expect(table.entries().map(\.entityID) == ["a", "d", "e"])
    #expect(table.stats.entries == 3)
    for id in ["b", "c"] { #expect(table.bitmap(entityID: id, sourceVersion: "v1") == nil) }
    for id in ["a", "d", "e"] {
      #expect(holdsExpectedPixels(try #require(table.bitmap(entityID: id, sourceVersion: "v1"))))
    }
  }

  @Test func aPinnedEntrySurvivesEviction() throws {
    let table = try ImageTable(format: makeFormat(maximumCount: 2), directory: Folder.make())
    let pinned = try writeEntry(table, "a")
    let before = Array(pinned.bytes)
    try writeEntry(table, "b")
    for id in ["c", "d", "e"] { try writeEntry(table, id) }
    // "a" is the oldest but pinned: the others made room; the count stayed exact.
    #expect(table.stats.entries == 2)
    #expect(
      table.bitmap(entityID: "a", sourceVersion: "v1")?.bytes.baseAddress
        == pinned.bytes.baseAddress)
    #expect(Array(pinned.bytes) == before)
    #expect(table.entries().map(\.entityID) == ["e", "a"])
  }

  @Test func whenEveryEntryIsPinnedAWriteSaysSo() throws {
    let table = try ImageTable(
      format: makeFormat(name: "full", maximumCount: 2), directory: Folder.make())
    let a = try writeEntry(table, "a")
    let b = try writeEntry(table, "b")
    #expect(throws: ImageTableError.noFreeSlot(format: "full", capacity: 2)) {
      try writeEntry(table, "c")
    }
    #expect(holdsExpectedPixels(a) && holdsExpectedPixels(b))
    withExtendedLifetime(b) {}
  }

  @Test func aPinnedEntrySurvivesDelete() throws {
    let table = try ImageTable(format: makeFormat(maximumCount: 2), directory: Folder.make())
    let pinned = try writeEntry(table, "a")
    let before = Array(pinned.bytes)
    #expect(table.delete(entityID: "a"))
    #expect(!table.delete(entityID: "a"))
    #expect(table.bitmap(entityID: "a", sourceVersion: "v1") == nil)
    for id in ["b", "c", "d", "e"] { try writeEntry(table, id) }
    #expect(Array(pinned.bytes) == before && holdsExpectedPixels(pinned))
    #expect(table.stats.entries == 1 || table.stats.entries == 2)
  }

  @Test func aPinnedEntrySurvivesReset() throws {
    let folder = try Folder.make()
    let table = try ImageTable(format: makeFormat(maximumCount: 4), directory: folder)
    let pinned = try writeEntry(table, "a")
    let before = Array(pinned.bytes)
    try table.reset()
    #expect(table.stats.entries == 0)
    #expect(table.bitmap(entityID: "a", sourceVersion: "v1") == nil)
    for id in ["b", "c", "d", "e"] { try writeEntry(table, id) }
    #expect(Array(pinned.bytes) == before && holdsExpectedPixels(pinned))
    #expect(table.stats.entries == 4)
  }

  @Test func deletedSlotsAreReusedOnceUnpinned() throws {
    let table = try ImageTable(format: makeFormat(maximumCount: 1), directory: Folder.make())
    var pinned: Bitmap? = try writeEntry(table, "a")
    table.delete(entityID: "a")
    #expect(throws: ImageTableError.self) { try writeEntry(table, "b") }
    pinned = nil
    try writeEntry(table, "b")
    #expect(table.bitmap(entityID: "b", sourceVersion: "v1") != nil)
    #expect(pinned == nil)
  }

  @Test func entriesPersistAcrossCloseAndReopen() throws {
    let folder = try Folder.make()
    let format = makeFormat(maximumCount: 10)
    do {
      let table = try ImageTable(format: format, directory: folder)
      for id in ["x", "y", "z"] { try writeEntry(table, id, "v7") }
      _ = table.bitmap(entityID: "x", sourceVersion: "v7")
    }
    let events = EventLog()
    let reopened = try ImageTable(
      format: format, directory: folder, options: .init(report: events.report))
    #expect(events.all.isEmpty)
    #expect(reopened.stats.entries == 3)
    for id in ["x", "y", "z"] {
      #expect(holdsExpectedPixels(try #require(reopened.bitmap(entityID: id, sourceVersion: "v7"))))
    }
  }

  @Test(arguments: [
    ("style", makeFormat(style: .bgr32)), ("width", makeFormat(width: 9)),
    ("scale", makeFormat(scale: 2)), ("pipeline", makeFormat(pipeline: "fit")),
  ])
  func aChangedFormatInvalidatesTheTable(field: String, changed: ImageFormat) throws {
    let folder = try Folder.make()
    do {
      let table = try ImageTable(format: makeFormat(), directory: folder)
      try writeEntry(table, "a")
    }
    let events = EventLog()
    do {
      let reopened = try ImageTable(
        format: changed, directory: folder, options: .init(report: events.report))
      #expect(reopened.stats.entries == 0)
    }
    #expect(events.all == [.invalidated(format: "thumb", changedFields: [field])])
    // Reported once: the recreated table opens quietly.
    let quiet = EventLog()
    _ = try ImageTable(format: changed, directory: folder, options: .init(report: quiet.report))
    #expect(quiet.all.isEmpty)
  }

  @Test func aChangedProcessorInvalidatesTheTable() throws {
    let folder = try Folder.make()
    do {
      let table = try ImageTable(
        format: makeFormat(), processorIdentifiers: ["fill@1"], directory: folder)
      try writeEntry(table, "a")
    }
    let events = EventLog()
    let reopened = try ImageTable(
      format: makeFormat(), processorIdentifiers: ["fill@2"], directory: folder,
      options: .init(report: events.report))
    #expect(reopened.bitmap(entityID: "a", sourceVersion: "v1") == nil)
    #expect(events.all == [.invalidated(format: "thumb", changedFields: ["processors"])])
  }

  @Test func idsThatHashAlikeNeverReturnEachOthersPixels() throws {
    let table = try ImageTable(
      format: makeFormat(maximumCount: 20), fingerprint: makeFormat(maximumCount: 20).fingerprint(),
      directory: Folder.make(), options: .init(), hashEntityID: { _ in 42 })
    let ids = (0..<15).map { "photo-\($0).jpg" }
    for id in ids { try writeEntry(table, id) }
    table.delete(entityID: "photo-3.jpg")
    try writeEntry(table, "photo-5.jpg", "v2")
    for id in ids where id != "photo-3.jpg" {
      let version = id == "photo-5.jpg" ? "v2" : "v1"
      let bitmap = try #require(table.bitmap(entityID: id, sourceVersion: version))
      #expect(bitmap.entityID == id && holdsExpectedPixels(bitmap))
    }
    #expect(table.bitmap(entityID: "photo-3.jpg", sourceVersion: "v1") == nil)
    #expect(table.stats.entries == 14)
  }

  @Test func idsAreAnyString() throws {
    let table = try ImageTable(format: makeFormat(), directory: Folder.make())
    let ids = ["../../etc/passwd", "ünïcödé/😀.jpg", "with\nnewline", "a=b&c", " "]
    for id in ids { try writeEntry(table, id) }
    for id in ids {
      #expect(table.bitmap(entityID: id, sourceVersion: "v1")?.entityID == id)
    }
    #expect(throws: ImageTableError.self) { try writeEntry(table, "") }
    #expect(throws: ImageTableError.self) {
      try writeEntry(table, String(repeating: "x", count: 500))
    }
  }

  @Test func fileGrowsInStepsAndStatsAddUp() throws {
    let format = makeFormat(width: 16, height: 16, maximumCount: 20)  // 1 KiB entries
    let table = try ImageTable(format: format, directory: Folder.make())
    let empty = table.stats
    #expect(empty.allocatedEntries == 0 && empty.entries == 0 && empty.capacity == 20)
    #expect(empty.fileBytes == 4096 + 4096)  // the two headers
    try writeEntry(table, "0")
    #expect(table.stats.allocatedEntries == 16)
    for index in 1..<16 { try writeEntry(table, "\(index)") }
    #expect(table.stats.allocatedEntries == 16)
    try writeEntry(table, "16")
    #expect(table.stats.allocatedEntries == 20)  // the next step, cut at maximumCount
    for index in 17..<30 { try writeEntry(table, "\(index)") }
    let full = table.stats
    #expect(full.allocatedEntries == 20 && full.entries == 20)
    #expect(full.bytesPerEntry == 1024 && full.rawBytesPerEntry == 1024)
    #expect(full.fileBytes == (4096 + 20 * 1024) + (4096 + 20 * 512))
    let size = try FileManager.default.attributesOfItem(atPath: table.tablePath)[.size] as? Int
    #expect(size == 4096 + 20 * 1024)
    #expect(abs(full.overhead - Double(full.fileBytes - 20 * 1024) / Double(20 * 1024)) < 1e-9)
  }

  @Test func entriesStartAligned() throws {
    let small = try ImageTable(format: makeFormat(width: 5, height: 3), directory: Folder.make())
    let large = try ImageTable(
      format: makeFormat(width: 40, height: 40, style: .bgr32), directory: Folder.make())
    for index in 0..<5 {
      let a = try writeEntry(small, "\(index)")
      let b = try writeEntry(large, "\(index)")
      #expect(UInt(bitPattern: a.bytes.baseAddress!) % 64 == 0)
      #expect(UInt(bitPattern: b.bytes.baseAddress!) % 4096 == 0)
    }
  }

  @Test func protectionModes() throws {
    let folder = try Folder.make()
    let protection = ProtectionState(locked: true)
    let complete = try ImageTable(
      format: makeFormat(name: "secret", protection: .complete), directory: folder,
      options: .init(protection: protection))
    let open = try ImageTable(
      format: makeFormat(name: "open"), directory: folder, options: .init(protection: protection))
    #expect(throws: ImageTableError.protectedDataUnavailable(format: "secret", mode: .complete)) {
      try writeEntry(complete, "a")
    }
    try writeEntry(open, "a")
    protection.unlock()
    try writeEntry(complete, "a")
    #expect(complete.bitmap(entityID: "a", sourceVersion: "v1") != nil)
    protection.lock()
    #expect(complete.bitmap(entityID: "a", sourceVersion: "v1") == nil)
    #expect(open.bitmap(entityID: "a", sourceVersion: "v1") != nil)
    let permissions = { (path: String) in
      (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }
    #expect(permissions(complete.tablePath) == 0o600 && permissions(complete.indexPath) == 0o600)
    #expect(permissions(open.tablePath) == 0o644)
    let untilFirst = try ImageTable(
      format: makeFormat(name: "first", protection: .completeUntilFirstUserAuthentication),
      directory: folder, options: .init(protection: ProtectionState(locked: true)))
    #expect(throws: ImageTableError.self) { try writeEntry(untilFirst, "a") }
  }

  @Test func readOnlyTablesRefuseWrites() throws {
    let folder = try Folder.make()
    let writer = try ImageTable(format: makeFormat(), directory: folder)
    try writeEntry(writer, "a")
    let reader = try ImageTable(
      format: makeFormat(), directory: folder, options: .init(readOnly: true))
    #expect(holdsExpectedPixels(try #require(reader.bitmap(entityID: "a", sourceVersion: "v1"))))
    #expect(throws: ImageTableError.readOnly(format: "thumb")) { try writeEntry(reader, "b") }
    // The writer replaces "a": the reader's index is stale and gives a miss, never new
    // pixels under the old record.
    try writeEntry(writer, "a", "v2")
    let stale = reader.bitmap(entityID: "a", sourceVersion: "v1")
    #expect(stale == nil || holdsExpectedPixels(stale!))
  }

  @Test func aFailedDrawStoresNothing() throws {
    struct Stop: Error {}
    let table = try ImageTable(format: makeFormat(maximumCount: 2), directory: Folder.make())
    try writeEntry(table, "a")
    #expect(throws: Stop.self) {
      try table.write(entityID: "a", sourceVersion: "v2") { _ in throw Stop() }
    }
    #expect(holdsExpectedPixels(try #require(table.bitmap(entityID: "a", sourceVersion: "v1"))))
  }
}

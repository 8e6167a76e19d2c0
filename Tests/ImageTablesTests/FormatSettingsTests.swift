import Foundation
import Testing

@testable import ImageTables

/// Fields of a format that do not change an entry's bytes (`maximumCount`, `devices`,
/// `protectionMode`) change in place: the entries stay.
@Suite("Format settings change in place")
struct FormatSettingsTests {
  /// A table of `count` entries "e0"..., written at `maximumCount`, closed.
  private func filledFolder(count: Int, maximumCount: Int) throws -> URL {
    let folder = try Folder.make()
    let table = try ImageTable(format: makeFormat(maximumCount: maximumCount), directory: folder)
    for index in 0..<count { try writeEntry(table, "e\(index)") }
    return folder
  }

  @Test func raisingMaximumCountKeepsEveryEntry() throws {
    let folder = try filledFolder(count: 5, maximumCount: 5)
    let events = EventLog()
    let table = try ImageTable(
      format: makeFormat(maximumCount: 12), directory: folder,
      options: .init(report: events.report))
    #expect(
      events.all == [
        .settingsChanged(
          format: "thumb", changes: [.init(field: "maximumCount", old: "5", new: "12")], kept: 5,
          evicted: 0)
      ])
    #expect(
      events.all.map(\.description) == [
        "table 'thumb': maximumCount 5 -> 12; kept 5 entries"
      ])
    #expect(table.stats.entries == 5 && table.stats.capacity == 12)
    #expect(table.entries().map(\.entityID) == (0..<5).map { "e\($0)" })
    for index in 0..<5 {
      let bitmap = try #require(table.bitmap(entityID: "e\(index)", sourceVersion: "v1"))
      #expect(holdsExpectedPixels(bitmap))
    }
    // The new room is used, and nothing is evicted until it is full.
    for index in 5..<12 { try writeEntry(table, "e\(index)") }
    #expect(table.stats.entries == 12)
    #expect(table.fingerprint.dictionary["maximumCount"] == "12")
  }

  @Test func theChangeIsMadeOnceAndThenOpensQuietly() throws {
    let folder = try filledFolder(count: 3, maximumCount: 3)
    _ = try ImageTable(format: makeFormat(maximumCount: 4), directory: folder)
    let quiet = EventLog()
    let table = try ImageTable(
      format: makeFormat(maximumCount: 4), directory: folder,
      options: .init(report: quiet.report))
    #expect(quiet.all.isEmpty)
    #expect(table.stats.entries == 3)
  }

  @Test func shrinkingEvictsTheLeastRecentlyUsedAndSaysSo() throws {
    let folder = try Folder.make()
    do {
      let table = try ImageTable(format: makeFormat(maximumCount: 6), directory: folder)
      for id in ["a", "b", "c", "d", "e"] { try writeEntry(table, id) }
      _ = table.bitmap(entityID: "a", sourceVersion: "v1")  // a is now the newest
      try writeEntry(table, "f")
      _ = table.bitmap(entityID: "c", sourceVersion: "v1")  // then c
    }
    let events = EventLog()
    let table = try ImageTable(
      format: makeFormat(maximumCount: 3), directory: folder,
      options: .init(report: events.report))
    #expect(
      events.all == [
        .settingsChanged(
          format: "thumb", changes: [.init(field: "maximumCount", old: "6", new: "3")], kept: 3,
          evicted: 3)
      ])
    #expect(
      events.all.first?.description
        == "table 'thumb': maximumCount 6 -> 3; kept 3 entries, evicted the 3 least recently "
        + "used to fit maximumCount")
    // Used last: a (before f was written), f, c.
    #expect(table.entries().map(\.entityID) == ["a", "f", "c"])
    for id in ["b", "d", "e"] { #expect(table.bitmap(entityID: id, sourceVersion: "v1") == nil) }
    for id in ["a", "f", "c"] {
      #expect(holdsExpectedPixels(try #require(table.bitmap(entityID: id, sourceVersion: "v1"))))
    }
    #expect(table.stats.allocatedEntries == 3)
  }

  @Test func devicesAndProtectionKeepTheEntriesToo() throws {
    let folder = try filledFolder(count: 4, maximumCount: 10)
    let events = EventLog()
    let changed = try ImageFormat(
      name: "thumb", family: "test", width: 8, height: 8, maximumCount: 10,
      devices: [.phone], protectionMode: .complete, pipeline: "fill")
    let table = try ImageTable(
      format: changed, directory: folder, options: .init(report: events.report))
    #expect(
      events.all == [
        .settingsChanged(
          format: "thumb",
          changes: [
            .init(field: "devices", old: "desktop,phone,server,tablet", new: "phone"),
            .init(field: "protectionMode", old: "none", new: "complete"),
          ], kept: 4, evicted: 0)
      ])
    #expect(table.stats.entries == 4)
    // The protection mode's permissions are the new files'.
    let attributes = try FileManager.default.attributesOfItem(atPath: table.tablePath)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
  }

  @Test func aBitmapHeldAcrossTheChangeKeepsItsBytesAndReadersMoveOn() throws {
    let folder = try filledFolder(count: 3, maximumCount: 3)
    let reader = try ImageTable(
      format: makeFormat(maximumCount: 3), directory: folder, options: .init(readOnly: true))
    let held = try #require(reader.bitmap(entityID: "e1", sourceVersion: "v1"))
    let before = Array(held.bytes)
    let writer = try ImageTable(format: makeFormat(maximumCount: 2), directory: folder)
    // e0 was the least recently used: evicted; e2 was written before e1 was read.
    #expect(writer.entries().map(\.entityID) == ["e2", "e1"])
    try writeEntry(writer, "e3")
    try writeEntry(writer, "e4")
    #expect(Array(held.bytes) == before && holdsExpectedPixels(held))
    // The reader moved to the new files at its next lookup.
    #expect(reader.bitmap(entityID: "e0", sourceVersion: "v1") == nil)
    let moved = try #require(reader.bitmap(entityID: "e4", sourceVersion: "v1"))
    #expect(holdsExpectedPixels(moved))
    #expect(reader.stats.capacity == 2)
  }

  @Test func aReaderOpensATableOfOtherSettingsAsItIs() throws {
    let folder = try filledFolder(count: 3, maximumCount: 3)
    let events = EventLog()
    let reader = try ImageTable(
      format: makeFormat(maximumCount: 50), directory: folder,
      options: .init(readOnly: true, report: events.report))
    #expect(events.all.isEmpty)
    #expect(reader.stats.entries == 3 && reader.stats.capacity == 3)
    for index in 0..<3 {
      let bitmap = try #require(reader.bitmap(entityID: "e\(index)", sourceVersion: "v1"))
      #expect(holdsExpectedPixels(bitmap))
    }
    // Nothing was written: the table is still the one made for 3.
    let existing = try ImageTable(existingTableAt: reader.tablePath)
    #expect(existing.format.maximumCount == 3 && existing.stats.entries == 3)
  }

  @Test func aReadOnlyOpenOfOtherPixelsSaysWhatDiffersAndRecreatesNothing() throws {
    let folder = try filledFolder(count: 2, maximumCount: 10)
    let path = ImageTable.paths(formatName: "thumb", directory: folder).table
    #expect(
      throws: ImageTableError.formatChanged(
        path: path, format: "thumb", changedFields: ["width", "style"])
    ) {
      try ImageTable(
        format: makeFormat(width: 9, style: .bgr32, maximumCount: 10), directory: folder,
        options: .init(readOnly: true))
    }
    #expect(
      ImageTableError.formatChanged(path: path, format: "thumb", changedFields: ["width", "style"])
        .description
        == "\(path): table 'thumb' was written for another format (changed: width, style); it is "
        + "open read-only, so nothing was recreated: open it for writing (a render) to re-render it"
    )
    let table = try ImageTable(format: makeFormat(maximumCount: 10), directory: folder)
    #expect(table.stats.entries == 2)
  }

  @Test func onlyPixelFieldsCountAsChangedPixels() {
    let old = makeFormat(maximumCount: 5).fingerprint(processorIdentifiers: ["fill@1"])
    let new = makeFormat(maximumCount: 6, protection: .complete)
      .fingerprint(processorIdentifiers: ["fill@1"])
    #expect(new.changedFields(from: old) == ["maximumCount", "protectionMode"])
    #expect(new.changedPixelFields(from: old).isEmpty)
    let other = makeFormat(maximumCount: 6).fingerprint(processorIdentifiers: ["fill@2"])
    #expect(other.changedPixelFields(from: old) == ["processors"])
  }
}

import Foundation
import Testing

@testable import ImageTables

/// Damaged files give misses and reports: never a crash, never wrong pixels.
@Suite("Damaged tables")
struct CorruptionTests {
  let format = makeFormat(width: 16, height: 16, maximumCount: 10)

  struct Written {
    var tablePath: String
    var indexPath: String
    var entries: [TableEntry]
  }

  /// A table of five entries, closed; returns its folder, files and entries.
  private func writtenTable() throws -> (URL, Written) {
    let folder = try Folder.make()
    let table = try ImageTable(format: format, directory: folder)
    for id in ["a", "b", "c", "d", "e"] { try writeEntry(table, id) }
    return (
      folder,
      Written(tablePath: table.tablePath, indexPath: table.indexPath, entries: table.entries())
    )
  }

  private func patch(_ path: String, at offset: Int, with bytes: [UInt8]) throws {
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
    try handle.seek(toOffset: UInt64(offset))
    try handle.write(contentsOf: Data(bytes))
    try handle.close()
  }

  private func reopen(_ folder: URL) throws -> (ImageTable, EventLog) {
    let events = EventLog()
    return (
      try ImageTable(format: format, directory: folder, options: .init(report: events.report)),
      events
    )
  }

  /// Found by Scripts/damage-sweep: a reader's list (inspect, export, merge's plan) left
  /// out a record failing its checksum without a word, so `inspect` showed a table of
  /// fewer entries and exited 0 where `verify` named the damage.
  @Test func aReadersListNamesARecordThatFailsItsChecksumOnce() throws {
    let (_, table) = try writtenTable()
    let slot = try #require(table.entries.first { $0.entityID == "c" }?.slot)
    // The low byte of the record's width (offset 24), under the record checksum.
    try patch(table.indexPath, at: TableFileLayout.recordOffset(slot) + 24, with: [0x7F])
    let events = EventLog()
    let reader = try ImageTable(
      existingTableAt: table.tablePath, options: .init(readOnly: true, report: events.report))
    #expect(reader.entries().map(\.entityID).sorted() == ["a", "b", "d", "e"])
    let named = ImageTableEvent.corruptEntry(
      format: "thumb", slot: slot, entityID: nil, reason: "its record fails its checksum")
    #expect(events.all == [named])
    // Named once per record and instance: a second list, or a hit of it, adds nothing.
    #expect(reader.entries().count == 4)
    #expect(reader.bitmap(entityID: "c", sourceVersion: "v1") == nil)
    #expect(events.all == [named])
    #expect(reader.verify().corrupt.map(\.slot) == [slot])
  }

  /// Found by Scripts/damage-sweep: a record left mid-write with no writer running (its
  /// sequence odd) was left out of a reader's list without a word, where `verify` named it.
  @Test func aReadersListNamesAWriteLeftUnfinishedOnce() throws {
    let (_, table) = try writtenTable()
    let slot = try #require(table.entries.first { $0.entityID == "b" }?.slot)
    let record = TableFileLayout.recordOffset(slot)
    let index = try [UInt8](Data(contentsOf: URL(fileURLWithPath: table.indexPath)))
    try #require(index[record] & 3 == 0, "a committed sequence")
    try patch(table.indexPath, at: record, with: [index[record] | 1])  // being written
    let events = EventLog()
    let reader = try ImageTable(
      existingTableAt: table.tablePath, options: .init(readOnly: true, report: events.report))
    #expect(reader.entries().map(\.entityID).sorted() == ["a", "c", "d", "e"])
    let named = ImageTableEvent.corruptEntry(
      format: "thumb", slot: slot, entityID: nil, reason: "its write never finished")
    #expect(events.all == [named])
    #expect(reader.entries().count == 4)
    #expect(events.all == [named])
    #expect(reader.verify().corrupt.map(\.reason) == ["its write never finished"])
  }

  @Test func flippedPixelBytesAreAMissAndAReport() throws {
    let (folder, table) = try writtenTable()
    let slot = try #require(table.entries.first { $0.entityID == "c" }?.slot)
    let offset = 4096 + slot * 1024 + 100
    let tablePath = table.tablePath
    try patch(tablePath, at: offset, with: [0x5A, 0xA5])
    let (reopened, events) = try reopen(folder)
    #expect(reopened.bitmap(entityID: "c", sourceVersion: "v1") == nil)
    #expect(
      events.all == [
        .corruptEntry(
          format: "thumb", slot: slot, entityID: "c", reason: "its pixels fail their checksum")
      ])
    for id in ["a", "b", "d", "e"] {
      #expect(holdsExpectedPixels(try #require(reopened.bitmap(entityID: id, sourceVersion: "v1"))))
    }
  }

  @Test func flippedRecordBytesAreAMissAndAReport() throws {
    let (folder, table) = try writtenTable()
    let slot = try #require(table.entries.first { $0.entityID == "b" }?.slot)
    try patch(table.indexPath, at: 4096 + slot * 512 + 24, with: [0x07])  // the width
    let (reopened, events) = try reopen(folder)
    #expect(reopened.bitmap(entityID: "b", sourceVersion: "v1") == nil)
    #expect(events.all.count == 1)
    #expect(reopened.stats.entries == 4)
  }

  @Test func aTruncatedTableGivesMissesForWhatIsGone() throws {
    let (folder, table) = try writtenTable()
    let order = table.entries
    let lastSlot = try #require(order.map(\.slot).max())
    // Cut the file in the middle of the last entry.
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: table.tablePath))
    try handle.truncate(atOffset: UInt64(4096 + lastSlot * 1024 + 512))
    try handle.close()
    let (reopened, _) = try reopen(folder)
    let lost = try #require(order.first { $0.slot == lastSlot }?.entityID)
    #expect(reopened.bitmap(entityID: lost, sourceVersion: "v1") == nil)
    for entry in order where entry.slot != lastSlot {
      let bitmap = reopened.bitmap(entityID: entry.entityID, sourceVersion: "v1")
      #expect(bitmap == nil || holdsExpectedPixels(bitmap!))
    }
    try writeEntry(reopened, "new")
    #expect(reopened.bitmap(entityID: "new", sourceVersion: "v1") != nil)
  }

  @Test func aDeletedIndexGivesMissesAndAReport() throws {
    let (folder, table) = try writtenTable()
    try FileManager.default.removeItem(atPath: table.indexPath)
    let (reopened, events) = try reopen(folder)
    #expect(events.all == [.indexRebuilt(format: "thumb", reason: "was missing")])
    #expect(reopened.stats.entries == 0)
    #expect(reopened.bitmap(entityID: "a", sourceVersion: "v1") == nil)
    try writeEntry(reopened, "a", "v2")
    #expect(holdsExpectedPixels(try #require(reopened.bitmap(entityID: "a", sourceVersion: "v2"))))
  }

  @Test func anIndexFromAnotherTableIsNotTrusted() throws {
    let (folder, table) = try writtenTable()
    let other = try Folder.make()
    let stranger = try ImageTable(format: format, directory: other)
    try writeEntry(stranger, "a", "v1")
    try FileManager.default.removeItem(atPath: table.indexPath)
    try FileManager.default.copyItem(atPath: stranger.indexPath, toPath: table.indexPath)
    let (reopened, events) = try reopen(folder)
    #expect(
      events.all == [
        .indexRebuilt(format: "thumb", reason: "belonged to another table or was damaged")
      ])
    #expect(reopened.bitmap(entityID: "a", sourceVersion: "v1") == nil)
  }

  @Test func aGarbageHeaderRecreatesTheTable() throws {
    let (folder, table) = try writtenTable()
    try patch(table.tablePath, at: 0, with: Array("not a table".utf8))
    let (reopened, events) = try reopen(folder)
    #expect(events.all == [.unreadableTable(format: "thumb", reason: "no table header")])
    #expect(reopened.stats.entries == 0)
  }

  @Test func verifyFindsDamageWhileOpen() throws {
    let (folder, written) = try writtenTable()
    let (table, _) = try reopen(folder)
    let slot = try #require(written.entries.first { $0.entityID == "d" }?.slot)
    try patch(written.tablePath, at: 4096 + slot * 1024, with: [1, 2, 3])
    let report = table.verify()
    #expect(report.checked == 5)
    #expect(
      report.corrupt == [.init(slot: slot, entityID: "d", reason: "its pixels fail their checksum")]
    )
    #expect(table.bitmap(entityID: "d", sourceVersion: "v1") == nil)
    #expect(table.verify() == VerificationReport(checked: 4, corrupt: []))
  }
}

import Foundation
import Testing

@testable import ImageTables

/// A table's files grow in steps of an eighth (at least 16 slots), so the slots
/// allocated stay within 12.5% (or 16 slots) of the entries held, where doubling let
/// 37 entries take 64 slots.
@Suite("Table growth")
struct TableGrowthTests {
  @Test(arguments: [(37, 48), (1000, 1045), (10_000, 10_983)])
  func allocatedSlotsStayWithinAnEighthOfTheEntries(entries: Int, slots: Int) throws {
    let format = makeFormat(
      name: "tiny", width: 2, height: 2, maximumCount: 20_000)
    let table = try ImageTable(format: format, directory: Folder.make())
    for index in 0..<entries { try writeEntry(table, "e\(index)") }
    let stats = table.stats
    #expect(stats.entries == entries)
    #expect(stats.allocatedEntries == slots)
    #expect(stats.allocatedEntries - entries <= max(16, entries / 8))
    // The files hold exactly the slots allocated, no more.
    let size = try FileManager.default.attributesOfItem(atPath: table.tablePath)[.size] as? Int
    #expect(
      size == TableFileLayout.tableHeaderSize(fingerprintBytes: table.fingerprint.text.utf8.count)
        + slots * stats.bytesPerEntry)
    // Every entry written is still served, with its own pixels.
    for index in stride(from: 0, to: entries, by: max(1, entries / 50)) {
      let bitmap = try #require(table.bitmap(entityID: "e\(index)", sourceVersion: "v1"))
      #expect(holdsExpectedPixels(bitmap))
    }
  }

  @Test func growthStopsAtMaximumCount() throws {
    let table = try ImageTable(
      format: makeFormat(name: "capped", width: 2, height: 2, maximumCount: 40),
      directory: Folder.make())
    for index in 0..<60 { try writeEntry(table, "e\(index)") }
    #expect(table.stats.allocatedEntries == 40 && table.stats.entries == 40)
    #expect(table.bitmap(entityID: "e19", sourceVersion: "v1") == nil)  // the oldest went
    #expect(table.bitmap(entityID: "e20", sourceVersion: "v1") != nil)
  }
}

import Foundation
import Testing

@testable import ImageTables

/// An entry is drawn into a reused buffer and written into its slot with one `pwrite`
/// (never through the mapping; the buffer zeroed, not fresh pages): what the file holds, what the
/// mappings of this and other openings see, and what a torn slot gives.
@Suite("Slot writes")
struct SlotWriteTests {
  /// The bytes `count` at `offset` of the file at `path`, read with `pread` (not mapped).
  private func fileBytes(_ path: String, offset: Int, count: Int) throws -> [UInt8] {
    let descriptor = open(path, O_RDONLY)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: count)
    let read = bytes.withUnsafeMutableBytes {
      pread(descriptor, $0.baseAddress, count, off_t(offset))
    }
    try #require(read == count)
    return bytes
  }

  /// The bytes `writeEntry` stores for a key in a `bgra32` slot of `layout`: its rows of
  /// `width` pixels, the padding after them zero.
  private func expectedSlotBytes(
    entityID: String, sourceVersion: String, width: Int, height: Int, layout: EntryLayout
  ) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: layout.bytesPerRow * height)
    bytes.withUnsafeMutableBytes { raw in
      for y in 0..<height {
        for x in 0..<width {
          PixelStyle.bgra32.store(
            expectedPixel(entityID: entityID, sourceVersion: sourceVersion, x: x, y: y),
            at: raw.baseAddress! + y * layout.bytesPerRow + x * 4)
        }
      }
    }
    return bytes
  }

  @Test func aReusedSlotHoldsExactlyTheNewEntryWithZeroPadding() throws {
    let folder = try Folder.make()
    // 20 pixels of 4 bytes: 80 bytes of a 128-byte row, so every row has padding.
    let format = makeFormat(width: 20, height: 12, maximumCount: 1)
    let table = try ImageTable(format: format, directory: folder)
    try writeEntry(table, "full", width: 20, height: 12)
    let slot = try #require(table.entries().first?.slot)
    // A full table gives up its one slot to the next entry: same slot, narrower and
    // shorter, drawn into a buffer that last held "full".
    try writeEntry(table, "narrow", width: 7, height: 5)
    let entry = try #require(table.entries().first)
    #expect(entry.entityID == "narrow" && entry.slot == slot)
    let layout = table.layout
    let written = try fileBytes(
      table.tablePath, offset: table.headerSize + slot * layout.entryStride,
      count: layout.bytesPerRow * 5)
    #expect(
      written
        == expectedSlotBytes(
          entityID: "narrow", sourceVersion: "v1", width: 7, height: 5, layout: layout))
    let bitmap = try #require(table.bitmap(entityID: "narrow", sourceVersion: "v1"))
    #expect(bitmap.width == 7 && bitmap.height == 5 && holdsExpectedPixels(bitmap))
    #expect(table.bitmap(entityID: "full", sourceVersion: "v1") == nil)
  }

  @Test func buffersReusedAcrossTablesOfOtherSizesHoldOnlyTheirEntry() throws {
    let folder = try Folder.make()
    let large = try ImageTable(
      format: makeFormat(name: "large", width: 64, height: 64, maximumCount: 4),
      directory: folder)
    let small = try ImageTable(
      format: makeFormat(name: "small", width: 10, height: 10, maximumCount: 4),
      directory: folder)
    for round in 0..<3 {
      let big = try writeEntry(large, "big-\(round)")
      let little = try writeEntry(small, "little-\(round)", width: 9, height: 10)
      // The Bitmaps a write returns view the mapping, which the write went around.
      #expect(holdsExpectedPixels(big) && holdsExpectedPixels(little))
    }
    for (table, id, width, height) in [(small, "little-2", 9, 10), (large, "big-2", 64, 64)] {
      let slot = try #require(table.entries().first { $0.entityID == id }?.slot)
      let layout = table.layout
      let written = try fileBytes(
        table.tablePath, offset: table.headerSize + slot * layout.entryStride,
        count: layout.bytesPerRow * height)
      #expect(
        written
          == expectedSlotBytes(
            entityID: id, sourceVersion: "v1", width: width, height: height, layout: layout))
    }
  }

  /// A drawing that sets no pixel stores zeros, as a new slot of the file reads, even
  /// when the buffer it is drawn into last held another table's entry: no pixel of one
  /// table shows through in another.
  @Test func aDrawingThatSetsNothingStoresZerosNotAnotherTablesPixels() throws {
    let folder = try Folder.make()
    let secret = try ImageTable(
      format: makeFormat(name: "secret", width: 16, height: 16), directory: folder)
    let other = try ImageTable(
      format: makeFormat(name: "other", width: 16, height: 16), directory: folder)
    for round in 0..<4 {
      try secret.write(entityID: "s\(round)", sourceVersion: "1") { canvas in
        canvas.bytes.initializeMemory(as: UInt8.self, repeating: 0xAB)
      }
      let empty = try other.write(entityID: "e\(round)", sourceVersion: "1") { _ in }
      let slot = try #require(other.entries().first { $0.entityID == "e\(round)" }?.slot)
      let stored = try fileBytes(
        other.tablePath, offset: other.headerSize + slot * other.layout.entryStride,
        count: other.layout.bytesPerRow * 16)
      #expect(stored.allSatisfy { $0 == 0 }, "round \(round): \(stored.filter { $0 != 0 }.count)")
      #expect(empty.bytes.allSatisfy { $0 == 0 }, "round \(round)")
    }
  }

  @Test func aReaderOpeningSeesAWriteAtOnce() throws {
    let folder = try Folder.make()
    let format = makeFormat(width: 32, height: 32, maximumCount: 8)
    let writer = try ImageTable(format: format, directory: folder)
    let reader = try ImageTable(format: format, directory: folder, options: .init(readOnly: true))
    for version in ["v1", "v2", "v3"] {
      try writeEntry(writer, "photo", version)
      // Another mapping of the file (as another process has) sees the bytes the
      // pwrite put in the page cache, and they verify.
      let seen = try #require(reader.bitmap(entityID: "photo", sourceVersion: version))
      #expect(holdsExpectedPixels(seen))
    }
  }

  @Test func aSlotTornAfterItsWriteIsRefused() throws {
    let folder = try Folder.make()
    let format = makeFormat(width: 32, height: 32, maximumCount: 8)
    var table: ImageTable? = try ImageTable(format: format, directory: folder)
    for id in ["a", "b", "c"] { try writeEntry(table!, id) }
    let slots = Dictionary(uniqueKeysWithValues: table!.entries().map { ($0.entityID, $0.slot) })
    let slot = try #require(slots["b"])
    let offset = table!.headerSize + slot * table!.layout.entryStride
    let other = table!.headerSize + (try #require(slots["a"])) * table!.layout.entryStride
    let half = table!.layout.bytesPerEntry / 2
    table!.close()
    table = nil
    // What a pwrite cut short leaves: the second half of the slot still holds other
    // bytes (here the second half of entry "a").
    let stale = try fileBytes(
      folder.appendingPathComponent("thumb.table").path, offset: other + half, count: half)
    let descriptor = open(folder.appendingPathComponent("thumb.table").path, O_RDWR)
    try #require(descriptor >= 0)
    let patched = stale.withUnsafeBytes {
      pwrite(descriptor, $0.baseAddress, half, off_t(offset + half))
    }
    close(descriptor)
    try #require(patched == half)
    let events = EventLog()
    let reopened = try ImageTable(
      format: format, directory: folder, options: .init(report: events.report))
    #expect(reopened.bitmap(entityID: "b", sourceVersion: "v1") == nil)
    #expect(
      events.all == [
        .corruptEntry(
          format: "thumb", slot: slot, entityID: "b", reason: "its pixels fail their checksum")
      ])
    for id in ["a", "c"] {
      #expect(holdsExpectedPixels(try #require(reopened.bitmap(entityID: id, sourceVersion: "v1"))))
    }
  }

  @Test func aDrawingThatFailsStoresNothingAndFreesItsSlot() throws {
    struct Stop: Error {}
    let folder = try Folder.make()
    let format = makeFormat(width: 16, height: 16, maximumCount: 1)
    let table = try ImageTable(format: format, directory: folder)
    try writeEntry(table, "kept")
    #expect(throws: Stop.self) {
      try table.write(entityID: "failed", sourceVersion: "v1") { canvas in
        canvas.set(x: 0, y: 0, RGBA(1, 2, 3))
        throw Stop()
      }
    }
    #expect(table.bitmap(entityID: "failed", sourceVersion: "v1") == nil)
    // The one slot went to the failed write (a full table evicts), and is free again.
    try writeEntry(table, "after")
    #expect(holdsExpectedPixels(try #require(table.bitmap(entityID: "after", sourceVersion: "v1"))))
  }
}

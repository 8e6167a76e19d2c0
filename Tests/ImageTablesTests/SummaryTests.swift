import Foundation
import Testing

@testable import ImageTables

/// The writer's summary (`<name>.summary`): a writer that closed cleanly lets the next
/// writer's open skip the index scan; a writer killed at any instant, or a summary that
/// does not describe the files, makes the next one scan, torn writes cleared.
@Suite("Writer's summary")
struct SummaryTests {
  static let tornRole = "IMAGETABLES_SUMMARY_TORN_WRITER"
  static let format = makeFormat(width: 12, height: 12, maximumCount: 30)

  private func keys(_ table: ImageTable) -> [String] {
    table.entries().map { "\($0.entityID)@\($0.sourceVersion)" }
  }

  @Test func aCleanCloseLetsTheNextWriterOpenWithoutAScan() throws {
    let folder = try Folder.make()
    let first = try ImageTable(format: Self.format, directory: folder)
    #expect(!first.openedFromSummary)
    for number in 0..<20 { try writeEntry(first, "p\(number)") }
    #expect(first.delete(entityID: "p3"))
    #expect(first.bitmap(entityID: "p0", sourceVersion: "v1") != nil)  // a use: p0 newest
    let before = keys(first)
    #expect(before.last == "p0@v1")
    first.close()

    let second = try ImageTable(format: Self.format, directory: folder)
    #expect(second.openedFromSummary)
    #expect(keys(second) == before)
    #expect(second.stats.entries == 19)
    // The writer's memory works: a rewrite replaces, a full table evicts the oldest.
    try writeEntry(second, "p5", "v2")
    for number in 20..<32 { try writeEntry(second, "p\(number)") }
    #expect(second.stats.entries == 30)
    #expect(second.sourceVersion(entityID: "p5") == "v2")
    #expect(second.sourceVersion(entityID: "p1") == nil)  // the oldest went first
    #expect(second.sourceVersion(entityID: "p0") == "v1")
    for entry in second.entries() {
      let bitmap = try #require(
        second.bitmap(entityID: entry.entityID, sourceVersion: entry.sourceVersion))
      #expect(holdsExpectedPixels(bitmap), "\(entry.entityID)")
    }
    #expect(second.verify().corrupt.isEmpty)
    let afterWrites = keys(second)
    second.close()

    // A writer's scan (no summary) finds the same entries.
    unlink(folder.appendingPathComponent("thumb.summary").path)
    let scanned = try ImageTable(format: Self.format, directory: folder)
    #expect(!scanned.openedFromSummary)
    #expect(Set(keys(scanned)) == Set(afterWrites))
  }

  /// Found by reading the writer's lookups for Scripts/damage-sweep: a writer that opened
  /// from the summary kept the shared file's buckets as they were, and a damaged bucket
  /// naming slot -1 (its slot word 0) trapped its lookup (`slots[-1]`), one naming a slot
  /// past the table the removal that shifts the buckets after another's; made to miss
  /// instead, the lookup let a rewrite leave the old entry beside the new one. The
  /// summary's checksum covers the buckets: damaged, they mean a scan, which rebuilds them.
  @Test func damagedBucketsAfterACleanCloseMeanAScan() throws {
    let folder = try Folder.make()
    let first = try ImageTable(format: Self.format, directory: folder)
    for number in 0..<20 { try writeEntry(first, "p\(number)") }
    let shared = first.sharedPath
    first.close()
    let geometry = SharedFile.Geometry(
      capacity: Self.format.maximumCount, readerCount: SharedFile.defaultReaderCount)
    var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: shared)))
    var damaged = 0
    for bucket in 0..<geometry.bucketCount {
      let offset = geometry.bucketsOffset + bucket * 8
      guard bytes[offset..<(offset + 8)].contains(where: { $0 != 0 }) else { continue }
      // The slot word (low 32 bits, slot + 1): 0 in one bucket, 65,537 in the next.
      let word: [UInt8] = damaged % 2 == 0 ? [0, 0, 0, 0] : [1, 0, 1, 0]
      bytes.replaceSubrange(offset..<(offset + 4), with: word)
      damaged += 1
    }
    #expect(damaged == 20)
    try Data(bytes).write(to: URL(fileURLWithPath: shared))
    let second = try ImageTable(format: Self.format, directory: folder)
    #expect(!second.openedFromSummary)
    // Each entity rewritten once, below the table's capacity: one entry each, the new one.
    for number in 0..<20 { try writeEntry(second, "p\(number)", "v2") }
    let ids = second.entries().map(\.entityID)
    #expect(ids.count == 20 && Set(ids).count == 20, "\(ids)")
    for number in 0..<20 {
      #expect(second.sourceVersion(entityID: "p\(number)") == "v2")
      let bitmap = try #require(second.bitmap(entityID: "p\(number)", sourceVersion: "v2"))
      #expect(holdsExpectedPixels(bitmap), "p\(number)")
    }
    #expect(second.verify().corrupt.isEmpty)
    second.close()
  }

  /// Found when `imgtool render` began closing its cache cleanly: a vacant record made
  /// to look mid-write after a clean close (as `kill -9` leaves one) was kept by a
  /// writer that opened from the summary, so `verify` went on naming it.
  @Test func aRecordChangedSinceTheCleanCloseMeansAScan() throws {
    let folder = try Folder.make()
    let first = try ImageTable(format: Self.format, directory: folder)
    for number in 0..<3 { try writeEntry(first, "p\(number)") }
    let indexPath = first.indexPath
    first.close()
    var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: indexPath)))
    let record = TableFileLayout.recordOffset(5)
    try #require(bytes[record..<(record + 8)].allSatisfy { $0 == 0 }, "slot 5 is vacant")
    bytes[record] = 1
    try Data(bytes).write(to: URL(fileURLWithPath: indexPath))
    let log = EventLog()
    let second = try ImageTable(
      format: Self.format, directory: folder, options: .init(report: log.report))
    #expect(!second.openedFromSummary)
    #expect(
      log.all == [
        .corruptEntry(format: "thumb", slot: 5, entityID: nil, reason: "its write never finished")
      ])
    #expect(second.stats.entries == 3)
    second.close()
    let reader = try ImageTable(
      format: Self.format, directory: folder, options: .init(readOnly: true))
    #expect(reader.verify().corrupt == [])
    // Nothing changed since this clean close: the summary is read again.
    let third = try ImageTable(format: Self.format, directory: folder)
    #expect(third.openedFromSummary)
    third.close()
  }

  @Test func aSummaryOfOtherBytesOrAnEarlierSessionIsNotTrusted() throws {
    let folder = try Folder.make()
    let summary = folder.appendingPathComponent("thumb.summary")
    let first = try ImageTable(format: Self.format, directory: folder)
    for number in 0..<6 { try writeEntry(first, "p\(number)") }
    first.close()
    let earlier = try Data(contentsOf: summary)

    // A later session writes and closes cleanly; the earlier summary put back is stale.
    let second = try ImageTable(format: Self.format, directory: folder)
    #expect(second.openedFromSummary)
    try writeEntry(second, "later")
    second.close()
    try earlier.write(to: summary)
    let third = try ImageTable(format: Self.format, directory: folder)
    #expect(!third.openedFromSummary)
    #expect(third.sourceVersion(entityID: "later") == "v1")
    #expect(third.stats.entries == 7)
    third.close()

    // One byte of a slot changed: the checksum fails, the writer scans.
    var bytes = try Data(contentsOf: summary)
    bytes[80 + 8] ^= 0x40
    try bytes.write(to: summary)
    let fourth = try ImageTable(format: Self.format, directory: folder)
    #expect(!fourth.openedFromSummary)
    #expect(fourth.stats.entries == 7)
    #expect(fourth.verify().corrupt.isEmpty)
  }

  /// A writer opened from a summary and killed (SIGKILL, a real second process) in the
  /// middle of a write: the summary on disk is stale, and the next writer must not
  /// trust it: it scans, reports the torn write, clears it, and keeps the entry the
  /// killed writer committed before it.
  @Test func aWriterKilledAfterOpeningFromTheSummaryLeavesItsTornWriteFound() throws {
    if let folder = ProcessInfo.processInfo.environment[Self.tornRole] {
      try writeThenStopMidWrite(into: URL(fileURLWithPath: folder))
      return
    }
    let folder = try Folder.make()
    let first = try ImageTable(format: Self.format, directory: folder)
    for number in 0..<5 { try writeEntry(first, "p\(number)") }
    first.close()

    let ready = folder.appendingPathComponent("mid-write").path
    let child = try spawnSelf(
      filter: "aWriterKilledAfterOpeningFromTheSummaryLeavesItsTornWriteFound",
      environment: [Self.tornRole: folder.path, "IMAGETABLES_READY": ready])
    #expect(waitForFile(ready), "the writer did not reach its write")
    kill(child.processIdentifier, SIGKILL)
    child.waitUntilExit()
    #expect(child.terminationReason == .uncaughtSignal)
    #expect(try String(contentsOfFile: ready, encoding: .utf8) == "from summary")

    let reader = try ImageTable(
      format: Self.format, directory: folder, options: .init(readOnly: true))
    #expect(reader.hasTornWrites)
    let log = EventLog()
    let writer = try ImageTable(
      format: Self.format, directory: folder, options: .init(report: log.report))
    #expect(!writer.openedFromSummary)
    let torn = log.all.compactMap { event -> String? in
      if case .corruptEntry(_, _, _, let reason) = event { return reason }
      return nil
    }
    #expect(torn == ["its write never finished"])
    #expect(writer.sourceVersion(entityID: "committed") == "v1")
    #expect(writer.sourceVersion(entityID: "torn") == nil)
    #expect(writer.stats.entries == 6)
    // Its verify names what its open found; the torn record is cleared on disk.
    #expect(writer.verify().corrupt.map(\.reason) == ["its write never finished"])
    writer.close()
    #expect(!reader.hasTornWrites)
    let next = try ImageTable(format: Self.format, directory: folder)
    #expect(next.openedFromSummary)
    #expect(next.verify() == VerificationReport(checked: 6, corrupt: []))
  }

  private func writeThenStopMidWrite(into folder: URL) throws {
    let table = try ImageTable(format: Self.format, directory: folder)
    try writeEntry(table, "committed")
    let ready = ProcessInfo.processInfo.environment["IMAGETABLES_READY"] ?? ""
    let opened = table.openedFromSummary ? "from summary" : "scanned"
    try table.write(entityID: "torn", sourceVersion: "v1") { canvas in
      memset(canvas.bytes.baseAddress!, 0x5A, canvas.bytes.count)
      _ = FileManager.default.createFile(atPath: ready, contents: Data(opened.utf8))
      while true { sleep(1) }
    }
  }
}

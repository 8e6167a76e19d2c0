import Foundation
import Testing

@testable import ImageTables

/// Files cut short by another process while this one has them mapped: a read past a
/// file's new end would be a SIGBUS; the mapping guard turns it into zeros, which the
/// table sees as a vacant record or pixels that fail their checksum.
@Suite("Files cut short under a reader")
struct CutShortUnderReaderTests {
  static let format = makeFormat(width: 24, height: 24, maximumCount: 64)
  static let holderRole = "IMAGETABLES_TORN_WRITE_HOLDER"
  static let cutRole = "IMAGETABLES_CUT_INSIDE_AN_ENTRY"

  /// Cuts `path` to `length` bytes in another process (coreutils' truncate).
  private func truncateInAnotherProcess(_ path: String, to length: Int) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/truncate")
    process.arguments = ["-s", String(length), path]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
  }

  @Test func aReaderSurvivesItsFilesCutShortAndServesOnlyWhatWasWritten() throws {
    let folder = try Folder.make()
    let writer = try ImageTable(format: Self.format, directory: folder)
    for number in 0..<40 { try writeEntry(writer, "photo-\(number)") }
    writer.close()
    let reader = try ImageTable(
      format: Self.format, directory: folder, options: .init(readOnly: true))
    let entries = reader.entries()
    try #require(entries.count == 40)
    #expect(Set(entries.map(\.slot)) == Set(0..<40))
    // Served (and so checked) before the cut: the first ten.
    var held: [Bitmap] = []
    for entry in entries where entry.slot < 10 {
      held.append(try #require(reader.bitmap(entityID: entry.entityID, sourceVersion: "v1")))
    }
    let stride = Self.format.layout.entryStride
    let headerSize = reader.headerSize
    try truncateInAnotherProcess(reader.tablePath, to: headerSize + 20 * stride)
    try truncateInAnotherProcess(reader.indexPath, to: TableFileLayout.recordOffset(30))
    // Every lookup after the cut: slots 20..<30 have their records but not their pixels
    // (read as zeros: they fail their checksum), slots 30..<40 not even their records.
    var served = 0
    for entry in entries {
      #expect(reader.contains(entityID: entry.entityID, sourceVersion: "v1") == (entry.slot < 30))
      guard let bitmap = reader.bitmap(entityID: entry.entityID, sourceVersion: "v1") else {
        #expect(entry.slot >= 20, "\(entry.entityID) in slot \(entry.slot) was lost")
        continue
      }
      #expect(entry.slot < 20, "\(entry.entityID) in slot \(entry.slot) served past the cut")
      #expect(holdsExpectedPixels(bitmap))
      served += 1
    }
    #expect(served == 20)
    for bitmap in held { #expect(holdsExpectedPixels(bitmap)) }
    let report = reader.verify()
    #expect(report.corrupt.map(\.slot) == Array(20..<30))
    #expect(
      report.corrupt.allSatisfy { $0.reason == "the table file is cut short" }, "\(report.corrupt)")
    #expect(reader.entries().count == 20)
    // The shared file cut to its header: every bucket reads as empty, every lookup a miss.
    try truncateInAnotherProcess(reader.sharedPath, to: 4096)
    for entry in entries {
      #expect(reader.bitmap(entityID: entry.entityID, sourceVersion: "v1") == nil)
      #expect(reader.sourceVersion(entityID: entry.entityID) == nil)
    }
    // A writer's open names what was lost and makes whole files of what is left.
    let log = EventLog()
    let healed = try ImageTable(
      format: Self.format, directory: folder, options: .init(report: log.report))
    let lost = log.all.compactMap { event -> Int? in
      guard case .corruptEntry(_, let slot, _, let reason) = event else { return nil }
      return reason == TableFiles.pixelsCutShort ? slot : nil
    }
    #expect(lost == Array(20..<30))
    #expect(healed.entries().count == 20)
    // Its verify includes what its open found; a later one finds nothing.
    #expect(healed.verify().corrupt.map(\.slot) == Array(20..<30))
    healed.close()
    let later = try ImageTable(
      format: Self.format, directory: folder, options: .init(readOnly: true))
    #expect(later.verify().corrupt.isEmpty)
    for entry in entries where entry.slot < 20 {
      let bitmap = try #require(later.bitmap(entityID: entry.entityID, sourceVersion: "v1"))
      #expect(holdsExpectedPixels(bitmap))
    }
  }

  /// Entries served (and so checked) before another process cut the table are not
  /// served again from the zeros past the cut: each serve reads its entry's last byte, a
  /// page cut away faults there, and the entry's pixels are checked again. The first
  /// lookup after the cut is of an entry past it, before any other read has faulted.
  @Test func anEntryCheckedBeforeTheCutIsCheckedAgainAfterIt() throws {
    let folder = try Folder.make()
    let writer = try ImageTable(format: Self.format, directory: folder)
    for number in 0..<40 { try writeEntry(writer, "photo-\(number)") }
    writer.close()
    let reader = try ImageTable(
      format: Self.format, directory: folder, options: .init(readOnly: true))
    let entries = reader.entries().sorted { $0.slot > $1.slot }
    try #require(entries.count == 40)
    for entry in entries {
      let bitmap = try #require(reader.bitmap(entityID: entry.entityID, sourceVersion: "v1"))
      #expect(holdsExpectedPixels(bitmap))
    }
    try truncateInAnotherProcess(
      reader.tablePath, to: reader.headerSize + 20 * Self.format.layout.entryStride)
    for entry in entries {
      let bitmap = reader.bitmap(entityID: entry.entityID, sourceVersion: "v1")
      if entry.slot < 20 {
        #expect(bitmap.map(holdsExpectedPixels) == true, "slot \(entry.slot) lost")
      } else {
        #expect(bitmap == nil, "\(entry.entityID) in slot \(entry.slot) served past the cut")
      }
    }
  }

  /// An index cut short is named with the slots it leaves without records, in words.
  @Test func anIndexCutShortNamesTheSlotsItLeftWithoutRecords() throws {
    let folder = try Folder.make()
    let writer = try ImageTable(format: Self.format, directory: folder)
    for number in 0..<16 { try writeEntry(writer, "photo-\(number)") }
    writer.close()
    let paths = try ImageTable(
      format: Self.format, directory: folder, options: .init(readOnly: true))
    let tableLength = try #require(
      try FileManager.default.attributesOfItem(atPath: paths.tablePath)[.size] as? Int)
    let slots = (tableLength - paths.headerSize) / Self.format.layout.entryStride
    try #require(slots >= 16)
    try truncateInAnotherProcess(paths.indexPath, to: TableFileLayout.recordOffset(4))
    let reader = try ImageTable(
      format: Self.format, directory: folder, options: .init(readOnly: true))
    let report = reader.verify()
    #expect(
      report.corrupt.first?.reason
        == "the index file is cut short: it holds 4 records for the table's \(slots) slots; "
        + "any entry in slots 4 to \(slots - 1) is lost", "\(report.corrupt)")
  }

  /// A cut through the middle of an entry checked before, in a process where no page
  /// has faulted yet (the fault count is the process's: an earlier fault makes every
  /// serve check pixels again, and would hide a serve that no longer notices a cut).
  /// The entry's first bytes stay in the file; a serve must still find the cut.
  @Test func aCutInsideACheckedEntryIsFoundByItsNextServe() throws {
    if let folder = ProcessInfo.processInfo.environment[Self.cutRole] {
      let reader = try ImageTable(
        format: Self.format, directory: URL(fileURLWithPath: folder),
        options: .init(readOnly: true))
      let entries = reader.entries()
      try #require(entries.count == 40)
      for entry in entries {
        let bitmap = try #require(reader.bitmap(entityID: entry.entityID, sourceVersion: "v1"))
        #expect(holdsExpectedPixels(bitmap))
      }
      // The first page boundary inside a slot's pixels, past its first byte.
      let layout = Self.format.layout
      let pixelBytes = layout.bytesPerRow * Self.format.height
      var cut = 0
      var slot = 10
      while cut == 0 {
        let start = reader.headerSize + slot * layout.entryStride
        let boundary = (start / 4096 + 1) * 4096
        if boundary < start + pixelBytes { cut = boundary } else { slot += 1 }
      }
      try truncateInAnotherProcess(reader.tablePath, to: cut)
      let entry = try #require(entries.first { $0.slot == slot })
      #expect(
        reader.bitmap(entityID: entry.entityID, sourceVersion: "v1") == nil,
        "slot \(slot), cut at byte \(cut) inside it, was served")
      _ = FileManager.default.createFile(atPath: folder + "/done", contents: Data())
      return
    }
    let folder = try Folder.make()
    let writer = try ImageTable(format: Self.format, directory: folder)
    for number in 0..<40 { try writeEntry(writer, "photo-\(number)") }
    writer.close()
    let child = try spawnSelf(
      filter: "aCutInsideACheckedEntryIsFoundByItsNextServe",
      environment: [Self.cutRole: folder.path])
    child.waitUntilExit()
    #expect(child.terminationStatus == 0, "the reader process's expectations failed")
    #expect(FileManager.default.fileExists(atPath: folder.path + "/done"))
  }

  /// A writer killed while it draws leaves its slot mid-write: a reader sees a torn write
  /// while no writer runs, and the next writer's open clears it.
  @Test func aWriteTornByAKillIsFoundAndClearedByTheNextWriter() throws {
    if let folder = ProcessInfo.processInfo.environment[Self.holderRole] {
      let table = try ImageTable(format: Self.format, directory: URL(fileURLWithPath: folder))
      try writeEntry(table, "kept")
      try table.write(entityID: "torn", sourceVersion: "v1") { _ in
        _ = FileManager.default.createFile(atPath: folder + "/drawing", contents: Data())
        while true { sleep(1) }
      }
      return
    }
    let folder = try Folder.make()
    let child = try spawnSelf(
      filter: "aWriteTornByAKillIsFoundAndClearedByTheNextWriter",
      environment: [Self.holderRole: folder.path])
    #expect(waitForFile(folder.path + "/drawing"), "the writer did not start drawing")
    let reader = try ImageTable(
      format: Self.format, directory: folder, options: .init(readOnly: true))
    // Its writer runs: the write is under way, not torn.
    #expect(!reader.hasTornWrites)
    kill(child.processIdentifier, SIGKILL)
    child.waitUntilExit()
    #expect(reader.hasTornWrites)
    #expect(reader.verify().corrupt.map(\.reason) == ["its write never finished"])
    let log = EventLog()
    let writer = try ImageTable(
      format: Self.format, directory: folder, options: .init(report: log.report))
    #expect(
      log.all.map(\.description) == [
        "table 'thumb': entry 1 is corrupt (its write never finished); served as a miss"
      ])
    #expect(writer.entries().map(\.entityID) == ["kept"])
    writer.close()
    let after = try ImageTable(
      format: Self.format, directory: folder, options: .init(readOnly: true))
    #expect(!after.hasTornWrites)
    #expect(after.verify().corrupt.isEmpty)
  }
}

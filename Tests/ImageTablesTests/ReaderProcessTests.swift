import Foundation
import Testing

@testable import ImageTables

/// Readers in other processes: they see new entries at once, are never served another
/// entity's or version's pixels, and a Bitmap they hold never changes.
@Suite("Reader processes")
struct ReaderProcessTests {
  static let readerRole = "IMAGETABLES_READER"
  static let pinnerRole = "IMAGETABLES_PINNER"
  static let format = makeFormat(name: "churn", width: 16, height: 16, maximumCount: 8)
  static let ids = (0..<12).map { "photo-\($0)" }

  /// One writer churns a table of 8 (writes, deletes, eviction) while two reader
  /// processes look entries up and hold some of them; every hit must hold exactly its
  /// key's pixels, every held Bitmap must keep its bytes, and hits must be many. The
  /// readers also verify the table now and then (as `imgtool verify` beside a render):
  /// slots being written, emptied or reused meanwhile are never called corrupt.
  @Test func readersInOtherProcessesSeeNewEntriesAndNeverWrongPixels() throws {
    if let folder = ProcessInfo.processInfo.environment[Self.readerRole] {
      try readAndReport(folder: URL(fileURLWithPath: folder))
      return
    }
    let seconds =
      ProcessInfo.processInfo.environment["IMAGETABLES_CHURN_SECONDS"].flatMap(Double.init) ?? 3
    let folder = try Folder.make()
    let writer = try ImageTable(format: Self.format, directory: folder)
    try writeEntry(writer, "photo-0", "v0")
    let readers = try (0..<2).map { number in
      try spawnSelf(
        filter: "readersInOtherProcessesSeeNewEntriesAndNeverWrongPixels",
        environment: [
          Self.readerRole: folder.path, "IMAGETABLES_READER_NUMBER": "\(number)",
          "IMAGETABLES_CHURN_SECONDS": "\(seconds)",
        ])
    }
    for number in 0..<2 { #expect(waitForFile(folder.path + "/reader-\(number).ready")) }
    let deadline = Date().addingTimeInterval(seconds)
    var counter = 0
    var noRoom = 0
    while Date() < deadline {
      counter += 1
      do {
        try writeEntry(writer, Self.ids[counter % Self.ids.count], "v\(counter % 5)")
      } catch ImageTableError.noFreeSlot {
        noRoom += 1  // every slot pinned by the readers for a moment
      }
      if counter % 7 == 0 { writer.delete(entityID: Self.ids[(counter * 5) % Self.ids.count]) }
    }
    var totals = (hits: 0, wrong: 0, changed: 0, held: 0)
    for (number, reader) in readers.enumerated() {
      reader.waitUntilExit()
      #expect(reader.terminationStatus == 0)
      let text = try String(
        contentsOfFile: folder.path + "/reader-\(number).result", encoding: .utf8)
      let numbers = text.split(separator: " ").compactMap { Int($0) }
      try #require(numbers.count == 6, "reader \(number) wrote '\(text)'")
      #expect(numbers[4] > 0, "reader \(number) never verified")
      #expect(numbers[5] == 0, "reader \(number): \(numbers[5]) entries called corrupt")
      totals.hits += numbers[0]
      totals.wrong += numbers[1]
      totals.changed += numbers[2]
      totals.held += numbers[3]
    }
    print(
      "cross-process churn \(seconds) s: \(counter) writes (\(noRoom) found every slot pinned), "
        + "\(totals.hits) reader hits, \(totals.wrong) wrong, \(totals.held) bitmaps held, "
        + "\(totals.changed) changed")
    #expect(totals.wrong == 0)
    #expect(totals.changed == 0)
    #expect(totals.held > 0)
    #expect(totals.hits > 100, "readers must see the entries the writer commits")
    #expect(writer.stats.entries <= 8)
    #expect(writer.verify().corrupt.isEmpty)
  }

  private func readAndReport(folder: URL) throws {
    let environment = ProcessInfo.processInfo.environment
    let number = environment["IMAGETABLES_READER_NUMBER"] ?? "0"
    let seconds = environment["IMAGETABLES_CHURN_SECONDS"].flatMap(Double.init) ?? 3
    let table = try ImageTable(
      format: Self.format, directory: folder, options: .init(readOnly: true))
    _ = FileManager.default.createFile(
      atPath: folder.path + "/reader-\(number).ready", contents: nil)
    var hits = 0
    var wrong = 0
    var changed = 0
    var heldCount = 0
    var verified = 0
    var calledCorrupt = 0
    var held: [(Bitmap, [UInt8])] = []
    let deadline = Date().addingTimeInterval(seconds)
    var step = 0
    while Date() < deadline {
      step += 1
      let id = Self.ids[step % Self.ids.count]
      for version in 0..<5 {
        guard let bitmap = table.bitmap(entityID: id, sourceVersion: "v\(version)") else {
          continue
        }
        hits += 1
        if !holdsExpectedPixels(bitmap) { wrong += 1 }
        if step % 97 == 0, held.count < 3 {
          held.append((bitmap, Array(bitmap.bytes)))
          heldCount += 1
        }
      }
      if step % 50 == 0 {
        verified += 1
        calledCorrupt += table.verify().corrupt.count
      }
      // Held bitmaps are checked, and let go after a while, so the writer can reuse them.
      if step % 500 == 0 {
        for (bitmap, bytes) in held where Array(bitmap.bytes) != bytes { changed += 1 }
        held.removeAll()
      }
    }
    for (bitmap, bytes) in held where Array(bitmap.bytes) != bytes { changed += 1 }
    try "\(hits) \(wrong) \(changed) \(heldCount) \(verified) \(calledCorrupt)".write(
      toFile: folder.path + "/reader-\(number).result", atomically: true, encoding: .utf8)
  }

  /// The bug of a delete resetting a slot's sequence: write "a", open a reader, delete
  /// "a", write "b" into the same slot; the reader must not get b's pixels for "a".
  @Test func aReusedSlotNeverServesTheOldKey() throws {
    let folder = try Folder.make()
    let writer = try ImageTable(format: makeFormat(maximumCount: 1), directory: folder)
    try writeEntry(writer, "a")
    let reader = try ImageTable(
      format: makeFormat(maximumCount: 1), directory: folder, options: .init(readOnly: true))
    #expect(holdsExpectedPixels(try #require(reader.bitmap(entityID: "a", sourceVersion: "v1"))))
    writer.delete(entityID: "a")
    try writeEntry(writer, "b")
    #expect(reader.bitmap(entityID: "a", sourceVersion: "v1") == nil)
    let b = try #require(reader.bitmap(entityID: "b", sourceVersion: "v1"))
    #expect(b.entityID == "b" && holdsExpectedPixels(b))
  }

  /// A reader sees an entry committed after it opened at its next lookup, and its
  /// held Bitmap keeps the writer from reusing the slot.
  @Test func aReaderSeesNewCommitsAndItsPinsHold() throws {
    let folder = try Folder.make()
    let format = makeFormat(maximumCount: 2)
    let writer = try ImageTable(format: format, directory: folder)
    let reader = try ImageTable(format: format, directory: folder, options: .init(readOnly: true))
    #expect(reader.bitmap(entityID: "a", sourceVersion: "v1") == nil)
    try writeEntry(writer, "a")
    let held = try #require(reader.bitmap(entityID: "a", sourceVersion: "v1"))
    let bytes = Array(held.bytes)
    for id in ["b", "c", "d", "e"] { try writeEntry(writer, id) }
    #expect(Array(held.bytes) == bytes && holdsExpectedPixels(held))
    #expect(writer.entries().map(\.entityID).contains("a"))
    #expect(reader.bitmap(entityID: "e", sourceVersion: "v1") != nil)
  }

  /// The writer's reset moves readers to the new files at their next lookup.
  @Test func readersFollowAReset() throws {
    let folder = try Folder.make()
    let format = makeFormat(maximumCount: 4)
    let writer = try ImageTable(format: format, directory: folder)
    try writeEntry(writer, "a")
    let reader = try ImageTable(format: format, directory: folder, options: .init(readOnly: true))
    let old = try #require(reader.bitmap(entityID: "a", sourceVersion: "v1"))
    try writer.reset()
    #expect(reader.bitmap(entityID: "a", sourceVersion: "v1") == nil)
    try writeEntry(writer, "a", "v2")
    #expect(holdsExpectedPixels(try #require(reader.bitmap(entityID: "a", sourceVersion: "v2"))))
    #expect(holdsExpectedPixels(old))
  }

  /// A reader process that dies holding pins does not hold the slots forever: the
  /// writer finds its pid gone and clears its record.
  @Test func pinsOfADeadReaderAreReclaimed() throws {
    let format = makeFormat(name: "one", maximumCount: 1)
    if let folder = ProcessInfo.processInfo.environment[Self.pinnerRole] {
      let table = try ImageTable(
        format: format, directory: URL(fileURLWithPath: folder), options: .init(readOnly: true))
      let held = try #require(table.bitmap(entityID: "a", sourceVersion: "v1"))
      _ = FileManager.default.createFile(atPath: folder + "/pinned", contents: nil)
      sleep(60)
      withExtendedLifetime(held) {}
      return
    }
    let folder = try Folder.make()
    let writer = try ImageTable(format: format, directory: folder)
    try writeEntry(writer, "a")
    let child = try spawnSelf(
      filter: "pinsOfADeadReaderAreReclaimed", environment: [Self.pinnerRole: folder.path])
    #expect(waitForFile(folder.path + "/pinned"))
    #expect(throws: ImageTableError.noFreeSlot(format: "one", capacity: 1)) {
      try writeEntry(writer, "b")
    }
    kill(child.processIdentifier, SIGKILL)
    child.waitUntilExit()
    try writeEntry(writer, "b")
    #expect(writer.bitmap(entityID: "a", sourceVersion: "v1") == nil)
    #expect(holdsExpectedPixels(try #require(writer.bitmap(entityID: "b", sourceVersion: "v1"))))
  }
}

import Foundation
import Testing

@testable import ImageTables

/// Tables shared between processes and killed processes. The second process is this
/// test binary run again with a role in its environment.
@Suite("Processes")
struct ProcessTests {
  static let writerRole = "IMAGETABLES_CRASH_WRITER"
  static let holderRole = "IMAGETABLES_LOCK_HOLDER"
  static let format = makeFormat(width: 24, height: 24, maximumCount: 40)

  /// Kills a writer at random moments, at least 20 times; after each, every entry the
  /// reopened table serves verifies and equals what was written for its key.
  @Test func killedWritersNeverLeaveTornEntries() throws {
    if let folder = ProcessInfo.processInfo.environment[Self.writerRole] {
      try writeForever(into: URL(fileURLWithPath: folder))
      return
    }
    let folder = try Folder.make()
    var generator = SystemRandomNumberGenerator()
    var served = 0
    for round in 0..<24 {
      let ready = folder.appendingPathComponent("ready-\(round)").path
      let child = try spawnSelf(
        filter: "killedWritersNeverLeaveTornEntries",
        environment: [Self.writerRole: folder.path, "IMAGETABLES_READY": ready])
      #expect(waitForFile(ready), "the writer did not start")
      usleep(UInt32.random(in: 1_000...80_000, using: &generator))
      kill(child.processIdentifier, SIGKILL)
      child.waitUntilExit()
      #expect(child.terminationReason == .uncaughtSignal)
      let table = try ImageTable(
        format: Self.format, directory: folder, options: .init(waitForWriter: true))
      for entry in table.entries() {
        guard
          let bitmap = table.bitmap(entityID: entry.entityID, sourceVersion: entry.sourceVersion)
        else {
          continue  // reported as corrupt: a miss, as it must be
        }
        served += 1
        #expect(
          holdsExpectedPixels(bitmap), "\(entry.entityID) \(entry.sourceVersion) in round \(round)")
      }
      #expect(table.stats.entries <= 40)
    }
    #expect(served > 0, "no entry survived any round: the test checked nothing")
  }

  private func writeForever(into folder: URL) throws {
    let table = try ImageTable(
      format: Self.format, directory: folder, options: .init(waitForWriter: true))
    if let ready = ProcessInfo.processInfo.environment["IMAGETABLES_READY"] {
      _ = FileManager.default.createFile(atPath: ready, contents: Data())
    }
    var counter = 0
    while true {
      counter += 1
      try writeEntry(
        table, "photo-\(counter % 70)", "v\(counter)", width: 1 + counter % 24, height: 24)
      if counter % 11 == 0 { table.delete(entityID: "photo-\((counter * 7) % 70)") }
    }
  }

  @Test func aSecondWriterGetsAClearErrorOrWaits() throws {
    if let folder = ProcessInfo.processInfo.environment[Self.holderRole] {
      let table = try ImageTable(format: Self.format, directory: URL(fileURLWithPath: folder))
      _ = FileManager.default.createFile(atPath: folder + "/held", contents: Data())
      usleep(1_500_000)
      withExtendedLifetime(table) {}
      return
    }
    let folder = try Folder.make()
    let child = try spawnSelf(
      filter: "aSecondWriterGetsAClearErrorOrWaits", environment: [Self.holderRole: folder.path])
    #expect(waitForFile(folder.path + "/held"))
    let lockPath = ImageTable.paths(formatName: "thumb", directory: folder).lock
    #expect(throws: ImageTableError.lockedByAnotherWriter(path: lockPath)) {
      try ImageTable(format: Self.format, directory: folder)
    }
    // A reader needs no lock.
    _ = try ImageTable(format: Self.format, directory: folder, options: .init(readOnly: true))
    // Asked to wait, the second writer gets the table once the first is done.
    let waited = try ImageTable(
      format: Self.format, directory: folder, options: .init(waitForWriter: true))
    try writeEntry(waited, "after")
    child.waitUntilExit()
    #expect(child.terminationStatus == 0)
  }
}

import Foundation
import Synchronization
import TestFixtures
import Testing

@testable import ImageTables

/// `close()` lets go of a table's writer lock, so another table (in this process too)
/// becomes the writer; the error of a second writer in this process names it.
@Suite("Closing a table")
struct CloseTests {
  @Test func aSecondWriterInThisProcessIsToldItIsThisProcess() throws {
    let folder = try Folder.make()
    let first = try ImageTable(format: makeFormat(), directory: folder)
    let lock = ImageTable.paths(formatName: "thumb", directory: folder).lock
    let error = ImageTableError.lockedInThisProcess(path: lock, pid: getpid())
    #expect(throws: error) { try ImageTable(format: makeFormat(), directory: folder) }
    #expect(
      error.description
        == "\(lock): this process (pid \(getpid())) has this table open for writing already, in "
        + "another ImageCache or ImageTable; close() that one first (waitForWriter waits for its "
        + "close())")
    withExtendedLifetime(first) {}
  }

  @Test func closeLetsTheNextWriterInAndKeepsServingHits() throws {
    let folder = try Folder.make()
    let first = try ImageTable(format: makeFormat(), directory: folder)
    let held = try writeEntry(first, "a")
    first.close()
    first.close()  // a second close does nothing
    #expect(throws: ImageTableError.closed(format: "thumb")) { try writeEntry(first, "b") }
    #expect(throws: ImageTableError.closed(format: "thumb")) { try first.reset() }
    #expect(!first.delete(entityID: "a"))
    #expect(
      ImageTableError.closed(format: "thumb").description
        == "format 'thumb': the table was closed; open it again to write")
    // Hits are still served from the mapped files.
    let hit = try #require(first.bitmap(entityID: "a", sourceVersion: "v1"))
    #expect(holdsExpectedPixels(hit) && holdsExpectedPixels(held))
    let second = try ImageTable(format: makeFormat(), directory: folder)
    #expect(holdsExpectedPixels(try #require(second.bitmap(entityID: "a", sourceVersion: "v1"))))
    try writeEntry(second, "b")
    #expect(second.entries().map(\.entityID) == ["a", "b"])
  }

  /// A writer that waits (`waitForWriter`) opens once the first one closes, not before:
  /// the flag is set just before `close()`, and the waiter finds it set.
  @Test(.timeLimit(.hangGuard)) func waitForWriterWaitsForTheOtherTablesClose() async throws {
    let folder = try Folder.make()
    let first = try ImageTable(format: makeFormat(), directory: folder)
    try writeEntry(first, "a")
    let closing = Atomic(false)
    // The open blocks in flock until the close: on a thread of its own, not a
    // cooperative one (see onOwnThread).
    let waiter = Task {
      try await onOwnThread {
        let second = try ImageTable(
          format: makeFormat(), directory: folder, options: .init(waitForWriter: true))
        return (closing.load(ordering: .sequentiallyConsistent), second.entries().map(\.entityID))
      }
    }
    // Let the waiter reach its flock (if it did not, it opens after the close anyway).
    try await Task.sleep(for: .milliseconds(200))
    closing.store(true, ordering: .sequentiallyConsistent)
    first.close()
    let (sawClose, entries) = try await waiter.value
    #expect(sawClose)
    #expect(entries == ["a"])
  }
}

import Foundation
import Locking
import TestFixtures
import Testing

@testable import ImageTables

/// The least recently used entry is evicted first, and "used" counts every hit in the
/// order the hits came, not only the writes: many reads between two writes (a grid
/// redrawn, an up-to-date check over a list) keep their order.
@Suite("Use order")
struct UseOrderTests {
  /// Ten entries written, all ten read, then three of them read again: three new entries
  /// evict the three read least recently (t3, t4, t5), not those just read.
  @Test func readsBetweenWritesKeepTheirOrder() throws {
    let table = try ImageTable(format: makeFormat(maximumCount: 10), directory: Folder.make())
    for index in 0..<10 { _ = try writeEntry(table, "t\(index)") }
    for index in 0..<10 { #expect(table.contains(entityID: "t\(index)", sourceVersion: "v1")) }
    for index in 0..<3 { #expect(table.bitmap(entityID: "t\(index)", sourceVersion: "v1") != nil) }
    for index in 10..<13 { _ = try writeEntry(table, "t\(index)") }
    let kept = Set(table.entries().map(\.entityID))
    #expect(kept == Set(["t0", "t1", "t2", "t6", "t7", "t8", "t9", "t10", "t11", "t12"]))
  }

  /// A hit before a write stays older than the entry written after it, and a hit after
  /// it is newer: the order of `entries()` is the order of last use.
  @Test func entriesAreInTheOrderOfLastUse() throws {
    let table = try ImageTable(format: makeFormat(), directory: Folder.make())
    for id in ["a", "b", "c"] { _ = try writeEntry(table, id) }
    #expect(table.bitmap(entityID: "a", sourceVersion: "v1") != nil)
    _ = try writeEntry(table, "d")
    #expect(table.bitmap(entityID: "b", sourceVersion: "v1") != nil)
    // Hitting the entry used last again changes nothing.
    #expect(table.bitmap(entityID: "b", sourceVersion: "v1") != nil)
    #expect(table.entries().map(\.entityID) == ["c", "a", "d", "b"])
  }

  /// A full table rewriting an entity it holds (a forced render) gives up that entity's
  /// entry, not the least recently used one: every other entry stays.
  @Test func rewritingAnEntryOfAFullTableEvictsNoOther() throws {
    let table = try ImageTable(format: makeFormat(maximumCount: 3), directory: Folder.make())
    for id in ["a", "b", "c"] { _ = try writeEntry(table, id) }
    // The newest first: evicting the least recently used would take `a`, then `b`.
    for id in ["c", "b"] { _ = try writeEntry(table, id, "v2") }
    #expect(table.entries().map(\.entityID) == ["a", "c", "b"])
    #expect(holdsExpectedPixels(try #require(table.bitmap(entityID: "a", sourceVersion: "v1"))))
    for id in ["b", "c"] {
      let entry = try #require(table.bitmap(entityID: id, sourceVersion: "v2"))
      #expect(holdsExpectedPixels(entry))
      #expect(table.bitmap(entityID: id, sourceVersion: "v1") == nil)
    }
  }

  /// When the entity's own entry is pinned (a reader holds it), the rewrite evicts the
  /// least recently used unpinned entry instead, and the held one stays valid.
  @Test func aPinnedEntryBeingRewrittenStaysServedToItsHolder() throws {
    let table = try ImageTable(format: makeFormat(maximumCount: 3), directory: Folder.make())
    for id in ["a", "b", "c"] { _ = try writeEntry(table, id) }
    let held = try #require(table.bitmap(entityID: "b", sourceVersion: "v1"))
    _ = try writeEntry(table, "b", "v2")
    #expect(holdsExpectedPixels(held) && held.sourceVersion == "v1")
    #expect(Set(table.entries().map(\.entityID)) == ["b", "c"])
    #expect(table.bitmap(entityID: "b", sourceVersion: "v2") != nil)
  }

  /// Every slot held by a live bitmap: a write waits for one to be let go, rather than
  /// fail, and takes the slot let go (the other held entries stay).
  @Test(.timeLimit(.hangGuard)) func aWriteWaitsForASlotToBeLetGo() async throws {
    let table = try ImageTable(format: makeFormat(maximumCount: 3), directory: Folder.make())
    let held = Lock(try ["a", "b", "c"].map { try writeEntry(table, $0) })
    let writeStarted = DispatchSemaphore(value: 0)
    let writeDone = Lock(false)
    let writing = Task {
      try await onOwnThread {
        writeStarted.signal()
        let id = try writeEntry(table, "d").entityID
        writeDone.withLock { $0 = true }
        return id
      }
    }
    // On a thread of its own, as the write: a let-go that waited for one of Swift's
    // cooperative threads came after the write's 2 s patience in a crowded full run.
    let doneBeforeLetGo = Lock<Bool?>(nil)
    let heldIntactAtLetGo = Lock<Bool?>(nil)
    let letGo = Thread {
      writeStarted.wait()
      Thread.sleep(forTimeInterval: 0.6)  // the write is waiting now (its patience is 2 s)
      // Every slot is held until now: a write that finished had evicted a held one.
      doneBeforeLetGo.withLock { $0 = writeDone.withLock { $0 } }
      heldIntactAtLetGo.withLock { $0 = held.withLock { $0.allSatisfy(holdsExpectedPixels) } }
      held.withLock { _ = $0.removeFirst() }  // a's bitmap goes: its slot is free to evict
    }
    letGo.start()
    #expect(try await writing.value == "d")
    #expect(doneBeforeLetGo.withLock { $0 } == false)
    #expect(heldIntactAtLetGo.withLock { $0 } == true)
    #expect(Set(table.entries().map(\.entityID)) == ["b", "c", "d"])
    #expect(held.withLock { $0.allSatisfy(holdsExpectedPixels) })
  }

  /// Held for longer than the write waits (2 s), every slot stays its holder's, and the
  /// write fails with `noFreeSlot`, writing nothing.
  @Test(.timeLimit(.hangGuard)) func aWriteGivesUpWhenNoSlotIsLetGo() async throws {
    let table = try ImageTable(format: makeFormat(maximumCount: 3), directory: Folder.make())
    let held = try ["a", "b", "c"].map { try writeEntry(table, $0) }
    let started = ContinuousClock.now
    await #expect(throws: ImageTableError.noFreeSlot(format: "thumb", capacity: 3)) {
      try await onOwnThread { try writeEntry(table, "d") }
    }
    #expect(ContinuousClock.now - started >= ImageTable.slotPatience)
    #expect(table.entries().map(\.entityID) == ["a", "b", "c"])
    #expect(held.allSatisfy(holdsExpectedPixels))
  }
}

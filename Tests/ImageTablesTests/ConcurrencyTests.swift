import Foundation
import Testing

@testable import ImageTables

@Suite("Concurrency")
struct ConcurrencyTests {
  /// Readers and writers on many threads: every hit holds exactly its key's pixels,
  /// and the count never passes maximumCount.
  @Test func manyReadersAndWriters() async throws {
    let table = try ImageTable(
      format: makeFormat(width: 12, height: 12, maximumCount: 24), directory: Folder.make())
    try await withThrowingTaskGroup(of: Int.self) { group in
      for worker in 0..<8 {
        group.addTask {
          var hits = 0
          for step in 0..<400 {
            let id = "photo-\((step * 7 + worker) % 40)"
            let version = "v\(step % 3)"
            if (step + worker) % 3 == 0 {
              do { try writeEntry(table, id, version) } catch ImageTableError.noFreeSlot {}
            } else if let bitmap = table.bitmap(entityID: id, sourceVersion: version) {
              guard holdsExpectedPixels(bitmap) else {
                throw ImageTableError.readOnly(format: "torn")
              }
              hits += 1
            }
            if step % 50 == 0 { table.delete(entityID: "photo-\(step % 40)") }
          }
          return hits
        }
      }
      var hits = 0
      for try await count in group { hits += count }
      #expect(hits > 0)
    }
    #expect(table.stats.entries <= 24)
    #expect(table.verify().corrupt.isEmpty)
  }
}

import Foundation
import Testing

@testable import ImageTables

/// A reader's `verify` and listing check the shared file's lookup buckets against the
/// committed records: found by Scripts/damage-sweep, a damaged bucket made `merge`
/// refuse a cache and a hit miss an entry while `verify` called the cache clean.
@Suite("Lookup bucket checks")
struct BucketCheckTests {
  static let format = makeFormat(width: 6, height: 6, maximumCount: 16)

  /// A table of `count` entries `p0`... closed cleanly, and its buckets' offset and
  /// count in the shared file.
  private func makeTable(_ folder: URL, count: Int = 8) throws -> (shared: String, buckets: [Int]) {
    let writer = try ImageTable(format: Self.format, directory: folder)
    for number in 0..<count { try writeEntry(writer, "p\(number)") }
    let shared = writer.sharedPath
    writer.close()
    let geometry = SharedFile.Geometry(
      capacity: Self.format.maximumCount, readerCount: SharedFile.defaultReaderCount)
    return (shared, (0..<geometry.bucketCount).map { geometry.bucketsOffset + $0 * 8 })
  }

  private func reader(_ folder: URL, log: EventLog = EventLog()) throws -> ImageTable {
    try ImageTable(
      format: Self.format, directory: folder, options: .init(readOnly: true, report: log.report))
  }

  /// Changes the bucket words of the shared file with `change` (offset, its 8 bytes).
  private func damage(
    _ shared: String, _ buckets: [Int], _ change: (inout [UInt8], [Int]) -> Void
  ) throws {
    var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: shared)))
    let used = buckets.filter { offset in bytes[offset..<(offset + 8)].contains { $0 != 0 } }
    change(&bytes, used)
    try Data(bytes).write(to: URL(fileURLWithPath: shared))
  }

  private func word(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
    bytes[offset..<(offset + 8)].reversed().reduce(0) { $0 << 8 | UInt64($1) }
  }

  private func setWord(_ bytes: inout [UInt8], _ offset: Int, _ value: UInt64) {
    for byte in 0..<8 { bytes[offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte)) }
  }

  @Test func aTableKeptByItsWriterHasNoBucketProblem() throws {
    let folder = try Folder.make()
    let writer = try ImageTable(format: Self.format, directory: folder)
    // Writes, rewrites, deletes and evictions: each moves buckets.
    for number in 0..<40 { try writeEntry(writer, "p\(number % 23)", "v\(number / 23)") }
    let written = writer.entries().map(\.entityID)
    #expect(written.count == 16)  // full: the oldest were evicted
    #expect(writer.delete(entityID: written[3]))
    #expect(writer.delete(entityID: written[10]))
    writer.close()
    let log = EventLog()
    let table = try reader(folder, log: log)
    #expect(table.stats.entries == 14)
    #expect(table.verify().corrupt == [])
    #expect(table.entries().count == 14)
    #expect(log.all.isEmpty, "\(log.all)")
  }

  @Test func anEmptiedBucketNamesTheEntryAHitCannotFind() throws {
    let folder = try Folder.make()
    let (shared, buckets) = try makeTable(folder)
    let before = try reader(folder)
    let slots = Dictionary(uniqueKeysWithValues: before.entries().map { ($0.entityID, $0.slot) })
    before.close()
    var lost = -1
    try damage(shared, buckets) { bytes, used in
      lost = Int(word(bytes, used[0]) & 0xFFFF_FFFF) - 1
      setWord(&bytes, used[0], 0)
    }
    let id = try #require(slots.first { $0.value == lost }?.key)
    let log = EventLog()
    let table = try reader(folder, log: log)
    // What the damage does: the entry is there, and a hit misses it.
    #expect(table.bitmap(entityID: id, sourceVersion: "v1") == nil)
    let problems = table.verify().corrupt
    #expect(
      problems == [
        .init(
          slot: lost, entityID: id,
          reason: "no lookup bucket leads to it, so a hit cannot find it; the next render "
            + "makes the lookup buckets again")
      ])
    // The listing names it too (so `inspect`, `merge` and an up-to-date check hear it),
    // once while it stays the same.
    #expect(table.entries().count == 8)
    #expect(table.entries().count == 8)
    let lostProblem = VerificationReport.Problem(
      slot: lost, entityID: id, reason: "no lookup bucket leads to it, so a hit cannot find it")
    #expect(
      log.all.filter {
        $0 == .lookupBucketsDamaged(format: "thumb", problems: [lostProblem], rebuilt: false)
      }.count == 2, "\(log.all)")  // one from verify, one from the two lists
    table.close()

    // A writer's open makes the buckets again, and says so: clean, every entry found.
    let writerLog = EventLog()
    try ImageTable(
      format: Self.format, directory: folder, options: .init(report: writerLog.report)
    ).close()
    #expect(
      writerLog.all == [
        .lookupBucketsDamaged(format: "thumb", problems: [lostProblem], rebuilt: true)
      ])
    #expect(
      writerLog.all.first?.description
        == "table 'thumb': its lookup buckets did not match its index (slot \(lost) ('\(id)'): "
        + "no lookup bucket leads to it, so a hit cannot find it); made again from the index, "
        + "no entry lost")
    let healed = try reader(folder)
    #expect(healed.verify().corrupt == [])
    for number in 0..<8 {
      let bitmap = try #require(healed.bitmap(entityID: "p\(number)", sourceVersion: "v1"))
      #expect(holdsExpectedPixels(bitmap))
    }
  }

  @Test func bucketsNamingWrongSlotsAreEachNamed() throws {
    let folder = try Folder.make()
    let (shared, buckets) = try makeTable(folder)
    let empty = try #require(
      buckets.first { offset in
        let bytes = try! [UInt8](Data(contentsOf: URL(fileURLWithPath: shared)))
        return word(bytes, offset) == 0
      })
    var named: (vacant: Int, other: Int, twice: Int, outside: Int) = (0, 0, 0, 0)
    try damage(shared, buckets) { bytes, used in
      // used[0] names slot 12, which holds no entry (8 entries fill slots 0...7).
      let first = word(bytes, used[0])
      setWord(&bytes, used[0], first & 0xFFFF_FFFF_0000_0000 | 13)
      named.vacant = 12
      // used[1] names the slot of used[2] with used[1]'s tag: another id's hash.
      let second = word(bytes, used[1])
      let third = word(bytes, used[2])
      setWord(&bytes, used[1], second & 0xFFFF_FFFF_0000_0000 | third & 0xFFFF_FFFF)
      named.other = Int(third & 0xFFFF_FFFF) - 1
      // used[3] copied into an empty bucket: its slot named twice.
      let fourth = word(bytes, used[3])
      setWord(&bytes, empty, fourth)
      named.twice = Int(fourth & 0xFFFF_FFFF) - 1
      // used[4] names slot 999, outside the table's 16.
      setWord(&bytes, used[4], word(bytes, used[4]) & 0xFFFF_FFFF_0000_0000 | 1000)
      named.outside = 999
    }
    let damaged = try reader(folder)
    let problems = damaged.verify().corrupt
    // Each stray bucket is named for the slot it names, blaming no entry.
    func stray(_ slot: Int, _ finding: String) -> Bool {
      problems.contains { $0.slot == slot && $0.entityID == nil && $0.reason.contains(finding) }
    }
    #expect(stray(named.vacant, "names it, but it holds no entry"), "\(problems)")
    #expect(stray(named.other, "names it with another id's hash"), "\(problems)")
    #expect(
      stray(named.twice, "names it a second time") || stray(named.twice, "past an empty bucket"),
      "\(problems)")
    #expect(stray(named.outside, "names slot 999, outside the table's 16"), "\(problems)")
    #expect(problems.filter { $0.entityID == nil }.count == 4, "\(problems)")
    // The entries whose buckets were overwritten (used[0], used[1], used[4]) are lost to
    // hits, and only those: the entry a stray names is found all the same.
    let lost = problems.filter { $0.entityID != nil }
    #expect(lost.count == 3, "\(problems)")
    #expect(lost.allSatisfy { $0.reason.hasPrefix("no lookup bucket leads to it") })
    for entry in damaged.entries() {
      let found = damaged.bitmap(entityID: entry.entityID, sourceVersion: "v1") != nil
      #expect(found == !lost.contains { $0.slot == entry.slot }, "\(entry.entityID)")
    }

    try ImageTable(format: Self.format, directory: folder).close()
    #expect(try reader(folder).verify().corrupt == [])
  }

  /// A bucket moved past an empty bucket: no probe from its home gets there (a probe
  /// stops at the first empty bucket), whatever the hashes are.
  @Test func aBucketPastAnEmptyBucketIsAStrayAndItsEntryLost() throws {
    let folder = try Folder.make()
    let (shared, buckets) = try makeTable(folder)
    var moved = -1
    var to = -1
    try damage(shared, buckets) { bytes, used in
      let from = try! #require(buckets.firstIndex(of: used[0]))
      // The first empty bucket after it, then the next empty one after that.
      func nextEmpty(after index: Int) -> Int {
        var probe = (index + 1) % buckets.count
        while word(bytes, buckets[probe]) != 0 { probe = (probe + 1) % buckets.count }
        return probe
      }
      to = nextEmpty(after: nextEmpty(after: from))
      let value = word(bytes, used[0])
      moved = Int(value & 0xFFFF_FFFF) - 1
      setWord(&bytes, buckets[to], value)
      setWord(&bytes, used[0], 0)
    }
    let table = try reader(folder)
    let id = try #require(table.entries().first { $0.slot == moved }?.entityID)
    #expect(table.bitmap(entityID: id, sourceVersion: "v1") == nil)
    let problems = table.verify().corrupt
    #expect(
      problems.contains {
        $0.slot == moved && $0.entityID == nil
          && $0.reason.hasPrefix("lookup bucket \(to) names it past an empty bucket")
      }, "\(problems)")
    #expect(
      problems.contains {
        $0.slot == moved && $0.entityID == id
          && $0.reason.hasPrefix("no lookup bucket leads to it")
      }, "\(problems)")
  }

  /// A writer running in this process moves buckets as it commits: a reader beside it
  /// does not check them (no false alarm), and checks them once the writer is gone.
  @Test func aReaderBesideAWriterInThisProcessLeavesTheBucketsAlone() throws {
    let folder = try Folder.make()
    let writer = try ImageTable(format: Self.format, directory: folder)
    for number in 0..<8 { try writeEntry(writer, "p\(number)") }
    let geometry = SharedFile.Geometry(
      capacity: Self.format.maximumCount, readerCount: SharedFile.defaultReaderCount)
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: writer.sharedPath)))
    let offset = try #require(
      (0..<geometry.bucketCount).map { geometry.bucketsOffset + $0 * 8 }.first { offset in
        word(bytes, offset) != 0
      })
    // Overwritten in place (the mapped file itself, not a new file in its place).
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: writer.sharedPath))
    try handle.seek(toOffset: UInt64(offset))
    try handle.write(contentsOf: Data(count: 8))
    try handle.close()
    let log = EventLog()
    let table = try reader(folder, log: log)
    #expect(table.verify().corrupt == [])
    #expect(table.entries().count == 8)
    #expect(log.all.isEmpty, "\(log.all)")
    writer.close()
    #expect(table.verify().corrupt.count == 1)
  }

  @Test func aWritersScanOfIntactBucketsReportsNothing() throws {
    let folder = try Folder.make()
    _ = try makeTable(folder)
    // No summary: the writer scans, and checks the buckets a clean close left.
    unlink(folder.appendingPathComponent("thumb.summary").path)
    let log = EventLog()
    let writer = try ImageTable(
      format: Self.format, directory: folder, options: .init(report: log.report))
    #expect(!writer.openedFromSummary)
    #expect(writer.stats.entries == 8)
    writer.close()
    #expect(log.all.isEmpty, "\(log.all)")
  }
}

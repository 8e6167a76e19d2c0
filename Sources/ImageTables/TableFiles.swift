import CMappingGuard
import Foundation
import Synchronization

/// One opening of a table's files (`.table`, `.index`, `.shared`) and the reader record
/// this table instance holds in the shared file; the lock-free hit path.
///
/// Every ``Bitmap`` served from these files holds one pin in this object's reader
/// record until it goes (a writer that found no free record serves copies instead); the object (so the mappings and the record) outlives its
/// table while any pin is held (``keepWhilePinned(_:)``). The protocol is written at
/// the top of `SharedFile.swift`.
final class TableFiles: @unchecked Sendable {
  // Safety of @unchecked Sendable: the mappings are fixed for this object's life; the
  // shared words are atomics; `verified` words are atomics private to this process.
  let table: MappedFile
  let index: MappedFile
  let shared: SharedFile
  let identity: UInt64
  let capacity: Int
  let layout: EntryLayout
  let headerSize: Int
  /// This instance's reader record; nil for a writer that found every record held.
  let reader: Int?
  /// The pins of ``reader``'s record; nil with it.
  let pins: UnsafeMutablePointer<Atomic<UInt32>>?
  /// Per slot: the committed sequence whose pixels this instance has checked (a
  /// checksum once per entry), or that sequence with `failedMark` when they failed.
  let verified: UnsafeMutablePointer<Atomic<UInt64>>
  static let failedMark: UInt64 = 1 << 63
  /// Slots wholly inside both files as their lengths were last looked at (at open, and
  /// whenever a slot past them is asked for): no record or pixel past them is read.
  private let checkedSlots = Atomic<Int>(0)

  /// Claims a reader record; a reader (`readOnly`) finding every record held by a live
  /// process is refused, a writer goes on without one.
  init(
    table: MappedFile, index: MappedFile, shared: SharedFile, identity: UInt64,
    layout: EntryLayout, headerSize: Int, readOnly: Bool
  ) throws(ImageTableError) {
    self.table = table
    self.index = index
    self.shared = shared
    self.identity = identity
    self.capacity = shared.capacity
    self.layout = layout
    self.headerSize = headerSize
    reader = try shared.claimReader()
    if reader == nil, readOnly, !shared.file.isPrivateCopy {
      throw .readerLimit(path: shared.file.path, limit: shared.readerCount)
    }
    pins = reader.map(shared.pins)
    verified = calloc(max(1, shared.capacity), 8)!.assumingMemoryBound(to: Atomic<UInt64>.self)
    checkedSlots.store(slotCount(), ordering: .relaxed)
  }

  /// Whether `slot` lies inside both files: from the lengths last looked at, or (for a
  /// slot past them: the writer grew the files, or they were cut short) from `fstat` now.
  @inline(__always)
  func isInsideFiles(_ slot: Int) -> Bool {
    slot < checkedSlots.load(ordering: .relaxed) || slot < refreshCheckedSlots()
  }

  private func refreshCheckedSlots() -> Int {
    let count = slotCount()
    checkedSlots.store(count, ordering: .relaxed)
    return count
  }

  deinit {
    if let reader { shared.releaseReader(reader) }
    free(verified)
  }

  func sequence(_ slot: Int) -> UnsafeMutablePointer<Atomic<UInt64>> {
    (index.base + TableFileLayout.recordOffset(slot)).assumingMemoryBound(to: Atomic<UInt64>.self)
  }

  func pixels(_ slot: Int) -> UnsafeMutableRawPointer {
    table.base + headerSize + slot * layout.entryStride
  }

  func markVerified(_ slot: Int, sequence: UInt64) {
    verified[slot].store(sequence, ordering: .relaxed)
  }

  /// What a lookup found.
  enum Lookup {
    case hit(Bitmap)
    case miss
    /// The entry's pixels fail their checksum (reported once per entry and instance).
    case corrupt(slot: Int, sequence: UInt64, reason: String)
    /// Found and checked, not pinned (a lookup with `pin: false`).
    case present
    /// Another entry's record: keep probing.
    case other
  }

  /// Finds the committed entry for `entityID` at `sourceVersion` and pins it (when
  /// `pin`); no lock, no system call, no allocation but the returned Bitmap.
  func lookup(_ entityID: String, hash: UInt64, sourceVersion: String, pin: Bool) -> Lookup {
    let tag = SharedFile.tag(hash)
    let mask = shared.bucketMask
    var bucket = Int(truncatingIfNeeded: hash) & mask
    for _ in 0..<shared.bucketCount {
      let value = shared.buckets[bucket].load(ordering: .acquiring)
      if value == 0 { return .miss }
      if value & 0xFFFF_FFFF_0000_0000 == tag {
        let slot = Int(value & 0xFFFF_FFFF) &- 1
        if slot >= 0, slot < capacity, isInsideFiles(slot) {
          let found = serve(
            slot: slot, entityID: entityID, hash: hash, sourceVersion: sourceVersion, pin: pin)
          if case .other = found {} else { return found }
        }
      }
      bucket = (bucket + 1) & mask
    }
    return .miss
  }

  private func serve(
    slot: Int, entityID: String, hash: UInt64, sourceVersion: String, pin: Bool
  ) -> Lookup {
    let record = index.base + TableFileLayout.recordOffset(slot)
    let sequence = self.sequence(slot)
    // The slot's words in other arrays are read after the record's checks, and the
    // first read of each in a large table is a cache miss: loaded now, they miss beside
    // the record's miss instead of one after another (values unused; nothing is trusted).
    if pin {
      _ = pins?[slot].load(ordering: .relaxed)
      // The caller of a hit reads the pixels next: their first line is asked for now,
      // beside the record's miss, not after it (a prefetch never faults).
      mapping_guard_prefetch(pixels(slot))
    }
    _ = verified[slot].load(ordering: .relaxed)
    _ = shared.stamps[slot].load(ordering: .relaxed)
    let before = sequence.pointee.load(ordering: .acquiring)
    guard before != 0, before & 3 == 0, record.field(8, as: UInt64.self) == hash else {
      return .other
    }
    // Every length from disk is checked before use.
    let idLength = Int(record.field(16, as: UInt32.self))
    let versionLength = Int(record.field(20, as: UInt32.self))
    guard idLength <= TableFileLayout.keyCapacity, versionLength <= TableFileLayout.keyCapacity,
      idLength + versionLength <= TableFileLayout.keyCapacity,
      Self.equal(entityID, record + TableFileLayout.keyOffset, idLength),
      Self.equal(sourceVersion, record + TableFileLayout.keyOffset + idLength, versionLength)
    else { return .other }
    let width = Int(record.field(24, as: UInt32.self))
    let height = Int(record.field(28, as: UInt32.self))
    let checksum = record.field(32, as: UInt64.self)
    guard (1...layout.width).contains(width), (1...layout.height).contains(height) else {
      return .other
    }
    // Once a page of any table file faulted past its end (a file cut short under this
    // process, now read as zeros), entries checked before are checked again at their
    // next serve: their pixels may be those zeros.
    var checked = verified[slot].load(ordering: .relaxed)
    if checked == before, mapping_guard_total_faults() != 0 { checked = 0 }
    // Read before the sequence is loaded again (a seqlock read): a record whose checksum
    // (seeded with the sequence) fails is damage only if the sequence stayed.
    let recordHolds =
      checked == before
      || IndexRecord.checksumHolds(record, keyLength: idLength + versionLength, sequence: before)
    if pin, let pins {
      pins[slot].wrappingAdd(1, ordering: .sequentiallyConsistent)
      guard sequence.pointee.load(ordering: .sequentiallyConsistent) == before else {
        pins[slot].wrappingSubtract(1, ordering: .releasing)
        return .other
      }
    } else {
      guard sequence.pointee.load(ordering: .acquiring) == before else { return .other }
    }
    if checked == before | Self.failedMark {
      if pin { pins?[slot].wrappingSubtract(1, ordering: .releasing) }
      return .miss  // reported when it failed
    }
    guard recordHolds else {
      if pin { pins?[slot].wrappingSubtract(1, ordering: .releasing) }
      verified[slot].store(before | Self.failedMark, ordering: .relaxed)
      return .corrupt(slot: slot, sequence: before, reason: "its record fails its checksum")
    }
    // A writer without a reader record serves a copy, checked as it is copied.
    if pin, pins == nil {
      return copy(
        slot: slot, sequence: before, width: width, height: height, checksum: checksum,
        entityID: entityID, sourceVersion: sourceVersion)
    }
    // An entry checked at an earlier serve is served again without reading its pixels,
    // but another process may have cut the file since. A cut takes the file's end with
    // it, so the last byte of the slots last looked at (this slot's, if it is past them)
    // is read: one line that every hit reads, not a miss of its own. A page cut away
    // faults and is replaced by zeros (see CMappingGuard), and if any fault happened
    // meanwhile in this process the entry's pixels are checked again.
    if pin, checked == before {
      let faults = mapping_guard_total_faults()
      let end = max(slot + 1, checkedSlots.load(ordering: .relaxed))
      _ = mapping_guard_touch(pixels(end - 1) + layout.entryStride - 1)
      if mapping_guard_total_faults() != faults { checked = 0 }
    }
    // An up-to-date check (no pin) reads the record only; the first serve of the entry
    // checks its pixels too.
    if pin, checked != before {
      let reason = verify(slot: slot, height: height, expected: checksum)
      if let reason {
        pins?[slot].wrappingSubtract(1, ordering: .releasing)
        verified[slot].store(before | Self.failedMark, ordering: .relaxed)
        return .corrupt(slot: slot, sequence: before, reason: reason)
      }
      verified[slot].store(before, ordering: .relaxed)
    }
    markUsed(slot)
    guard pin, let pins else { return .present }
    return .hit(
      Bitmap(
        base: UnsafeRawPointer(pixels(slot)), mapping: nil, width: width, height: height,
        bytesPerRow: layout.bytesPerRow, style: layout.style, entityID: entityID,
        sourceVersion: sourceVersion, pin: pins + slot))
  }

  /// A use of an entry not used since the clock last moved moves it on, so uses between
  /// two writes keep their order (the writer evicts by stamp); a repeated use of the
  /// entry used last writes nothing.
  @inline(__always)
  func markUsed(_ slot: Int) {
    if shared.stamps[slot].load(ordering: .relaxed) != shared.clock.pointee.load(ordering: .relaxed)
    {
      let stamp = shared.clock.pointee.wrappingAdd(1, ordering: .relaxed).newValue
      shared.stamps[slot].store(stamp, ordering: .relaxed)
    }
  }

  /// The source version of the committed entry for `entityID`, whichever it is; no
  /// lock, no pin, no pixel check. The version's bytes are copied between two loads of
  /// the record's sequence (a seqlock read, as a hit's), and dropped if it moved.
  func sourceVersion(of entityID: String, hash: UInt64) -> String? {
    let tag = SharedFile.tag(hash)
    let mask = shared.bucketMask
    var bucket = Int(truncatingIfNeeded: hash) & mask
    for _ in 0..<shared.bucketCount {
      let value = shared.buckets[bucket].load(ordering: .acquiring)
      if value == 0 { return nil }
      if value & 0xFFFF_FFFF_0000_0000 == tag {
        let slot = Int(value & 0xFFFF_FFFF) &- 1
        if slot >= 0, slot < capacity, isInsideFiles(slot),
          let version = storedVersion(slot: slot, entityID: entityID, hash: hash)
        {
          return version
        }
      }
      bucket = (bucket + 1) & mask
    }
    return nil
  }

  private func storedVersion(slot: Int, entityID: String, hash: UInt64) -> String? {
    let record = index.base + TableFileLayout.recordOffset(slot)
    let sequence = self.sequence(slot)
    let before = sequence.pointee.load(ordering: .acquiring)
    guard before != 0, before & 3 == 0, record.field(8, as: UInt64.self) == hash else {
      return nil
    }
    let idLength = Int(record.field(16, as: UInt32.self))
    let versionLength = Int(record.field(20, as: UInt32.self))
    guard idLength <= TableFileLayout.keyCapacity, versionLength <= TableFileLayout.keyCapacity,
      idLength + versionLength <= TableFileLayout.keyCapacity,
      Self.equal(entityID, record + TableFileLayout.keyOffset, idLength)
    else { return nil }
    let version = String(
      decoding: UnsafeRawBufferPointer(
        start: record + TableFileLayout.keyOffset + idLength, count: versionLength),
      as: UTF8.self)
    let holds = IndexRecord.checksumHolds(
      record, keyLength: idLength + versionLength, sequence: before)
    guard sequence.pointee.load(ordering: .acquiring) == before, holds else { return nil }
    return version
  }

  /// Checks an entry's pixels against the checksum of its record; the problem, or nil.
  func verify(slot: Int, height: Int, expected: UInt64) -> String? {
    let actual = Checksum.hash(
      UnsafeRawBufferPointer(start: pixels(slot), count: layout.bytesPerRow * height))
    return actual == expected ? nil : "its pixels fail their checksum"
  }

  /// Whether record `slot`'s entity id is `entityID` (its length checked first).
  func recordHolds(_ slot: Int, entityID: String) -> Bool {
    let record = index.base + TableFileLayout.recordOffset(slot)
    let idLength = Int(record.field(16, as: UInt32.self))
    return idLength <= TableFileLayout.keyCapacity
      && Self.equal(entityID, record + TableFileLayout.keyOffset, idLength)
  }

  /// Whether `count` bytes at `bytes` are `string`'s UTF-8.
  @inline(__always)
  private static func equal(_ string: String, _ bytes: UnsafeMutableRawPointer, _ count: Int)
    -> Bool
  {
    var string = string
    return string.withUTF8 { utf8 in
      utf8.count == count && (count == 0 || memcmp(utf8.baseAddress!, bytes, count) == 0)
    }
  }

  /// Whether any Bitmap of these files is alive (a pin in this instance's record).
  var isPinned: Bool {
    guard let pins else { return false }
    return (0..<capacity).contains { pins[$0].load(ordering: .acquiring) != 0 }
  }

  /// Openings whose table went while Bitmaps of them lived; each is let go once its
  /// last Bitmap has gone (checked whenever a table opens or closes).
  private static let orphans = TableLock<[TableFiles]>([])

  /// Keeps `files` (its mappings and reader record) while a Bitmap of it lives.
  static func keepWhilePinned(_ files: [TableFiles]) {
    orphans.withLock { orphans in
      orphans.append(contentsOf: files)
      orphans.removeAll { !$0.isPinned }
    }
  }

  /// Lets go of orphaned openings none of whose Bitmaps live any more.
  static func releaseUnpinnedOrphans() {
    orphans.withLock { orphans in orphans.removeAll { !$0.isPinned } }
  }

  /// Records the index file holds now (its length on disk), at most the capacity.
  func indexSlotCount() -> Int {
    min(
      capacity,
      max(0, (index.currentLength - TableFileLayout.indexHeaderSize) / TableFileLayout.recordSize))
  }

  /// Whole slots the table file holds now (its length on disk), at most the capacity.
  func tableSlotCount() -> Int {
    min(capacity, max(0, (table.currentLength - headerSize) / layout.entryStride))
  }

  /// What is wrong with the files' lengths, or nil: the writer grows the index first,
  /// then the table, by whole slots, so an index holding fewer records than the table
  /// holds slots was cut short (a committed record whose pixels pass the table's end is
  /// found by the record). One problem, named for the first slot lost.
  func lengthProblem() -> VerificationReport.Problem? {
    // The table's length first: a writer growing both meanwhile grows the index first.
    let slots = tableSlotCount()
    let records = indexSlotCount()
    guard records < slots else { return nil }
    return .init(
      slot: records, entityID: nil,
      reason: "the index file is cut short: it holds \(records) records for the table's "
        + "\(slots) slots; any entry in slots \(records) to \(slots - 1) is lost")
  }

  /// Every problem of the files' lengths: ``lengthProblem()``, and each committed record
  /// whose pixels are past the table file's end (read from the records only).
  func cutShortProblems() -> [VerificationReport.Problem] {
    var problems = lengthProblem().map { [$0] } ?? []
    let slots = tableSlotCount()
    for slot in slots..<max(slots, indexSlotCount()) {
      let sequence = self.sequence(slot).pointee.load(ordering: .acquiring)
      // A writer grows the table before it commits a record in the new slots: the
      // table's length looked at again after the commit was seen.
      guard !TableFileLayout.isVacant(sequence), slot >= tableSlotCount() else { continue }
      problems.append(
        .init(
          slot: slot, entityID: IndexRecord.read(slot: slot, from: index.base).0?.entityID,
          reason: Self.pixelsCutShort))
    }
    return problems
  }

  static let pixelsCutShort = "the table file is cut short: its pixels are past the file's end"

  /// Slots the files hold now (from their lengths on disk, for any process).
  func slotCount() -> Int {
    var tableStatus = stat()
    var indexStatus = stat()
    guard fstat(table.descriptor, &tableStatus) == 0, fstat(index.descriptor, &indexStatus) == 0
    else { return 0 }
    let tableSlots = max(0, (Int(tableStatus.st_size) - headerSize) / layout.entryStride)
    let indexSlots = max(
      0, (Int(indexStatus.st_size) - TableFileLayout.indexHeaderSize) / TableFileLayout.recordSize)
    return min(tableSlots, indexSlots, capacity)
  }
}

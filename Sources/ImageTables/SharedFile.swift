import Foundation
import Synchronization

// MARK: - The cross-process protocol
//
// A table is read by any number of processes and written by one (the holder of the
// `flock` on `<name>.lock`). What they share lives in three files mapped MAP_SHARED:
// `<name>.table` (pixels), `<name>.index` (one 512-byte record per slot) and
// `<name>.shared` (this file's layout: the lookup buckets, the use stamps and the
// reader table). Every word two processes both touch is accessed with atomics on the
// mapped memory; on Linux MAP_SHARED pages are the same physical pages in every
// process, so C11/Swift atomic orderings hold across processes as across threads.
//
// Record sequence (`seq`, u64 at offset 0 of a record). It only ever grows, so a
// value is never seen twice for one slot (the bug of a delete resetting it to 0):
//
//     seq % 4 == 0, seq != 0   committed: the record and pixels are an entry
//     seq % 4 == 1             being written (a crash here leaves a miss)
//     seq % 4 == 2             removed (deleted, evicted, or a write abandoned)
//     seq == 0                 never used
//
//     reserve   0 -> 1, removed R -> R + 3                      (writer)
//     commit    W -> W + 3 (after the record's fields and the pixels)
//     abandon   W -> W + 1
//     remove    C -> C + 2 (delete, eviction, replacement by a newer write)
//
// Reader table (LMDB's reader table, with pins per entry slot instead of per
// snapshot). `readerCount` records of 64 bytes, fixed when the file is made (the
// `maxReaders` of the open that makes it, 1,024 by default; later opens use the file's
// count, as LMDB's lock file); record r's `owner` word is 0 when free, else the pid of
// the process whose table instance claimed it (claimed with a compare-and-swap
// 0 -> pid). `readersUsed` (header) is the high-water mark of records ever claimed
// (LMDB's `mti_numreaders`): claims look for a free record below it before raising it,
// and the writer's pin checks scan only below it. Record r owns a pin array of one u32
// per entry slot; only the process that owns r changes it. The file ends after the pin
// arrays of the records below the mark: a claim that raises the mark first grows the
// file over the new record's pins (`posix_fallocate`, which any process may do, as
// often as it likes), then raises the mark [seq_cst], so every record a scan reaches
// has its pins inside the file. Every process maps the file's largest length, so the
// mapping never moves. A reader whose mapping is a private copy (a cache it may only
// read) claims no record: its pins could be seen by nobody, so it serves copies.
//
// The writer needs no record: a writer instance that finds every record held writes as
// usual and serves its own hits (and the Bitmaps `write` returns) as copies, which no
// eviction can touch. A reader that finds every record held by a live process is
// refused (``ImageTableError/readerLimit(path:limit:)``); the others go on.
//
// A larger `maxReaders` takes effect when a writer opens the table while no live
// process holds a record of the old file: it stores `superseded = 1` [seq_cst], then
// loads every owner [seq_cst]; a claim is a compare-and-swap [seq_cst] followed by a
// load of `superseded` [seq_cst]. So either the writer sees the claim (and keeps the
// file, storing `superseded = 0` again), or the claimer sees `superseded` and its
// instance reopens by path before any lookup (Dekker's pattern again).
//
// A hit (any process, no lock):
//   1. find the slot through the buckets (tag = high 32 bits of the id hash, then the
//      record's id hash and key bytes are compared; nothing is trusted from a bucket);
//   2. s1 = load(seq) [acquire]; s1 must be committed; read width, height, checksum
//      and compare the key (plain loads: a seqlock read);
//   3. pins[r][slot] += 1 [seq_cst read-modify-write];
//   4. s2 = load(seq) [seq_cst]; if s2 != s1 the entry changed: pins -= 1, miss;
//   5. the Bitmap is served; its deinit does pins[r][slot] -= 1 [release].
//
// Eviction and removal (the writer, under its in-process lock):
//   a. store(seq, C + 2) [seq_cst]: from now on step 4 of any hit fails;
//   b. remove the slot from the buckets;
//   c. for every claimed reader record, load(pins[r][slot]) [seq_cst]; if any is
//      non-zero the slot is *retired*: its bytes stay as they are until a later
//      check finds no pins (or the pinning process dead: its record is cleared).
//   Steps 3-4 and a-c are Dekker's pattern: in the single total order of seq_cst
//   operations either the writer's pin load sees the reader's increment (the slot is
//   not reused) or the reader's second seq load sees the removal (the reader backs
//   off). So no reader ever keeps a Bitmap whose bytes are rewritten, and no reader
//   is served another entity's bytes, or an older version's, for the same slot.
//
// Publishing (the writer): reserve (seq odd) -> draw pixels -> write record fields
// and checksum -> store(seq, committed) [seq_cst] -> insert the bucket [release] ->
// remove the previous entry of the same id, if any. A reader that finds the bucket
// (acquire) sees the committed record and pixels: new entries are visible to every
// process at the next lookup.
//
// Use stamps: `clock` (header) counts commits and uses; a hit of a slot whose stamp is
// not the clock moves the clock on (an atomic add) and stores the new value as its
// stamp; a hit of the slot used last writes nothing. The writer orders eviction by
// stamp, so hits in any process count as use, in the order they came.
//
// Replacement: when the writer recreates the files (reset, a changed format, damage)
// it stores `superseded = 1` [release] in the old shared file after the new files
// exist; readers check it on each lookup and reopen by path.
//
// Dead readers: a claimed record whose pid no longer exists (`kill(pid, 0)` fails
// with ESRCH) is cleared by the writer (pins zeroed, then owner 0) when it finds the
// record pinning a slot it wants, and at open; by any claimer when every record is held.
//
// Layout versions: 1 had 32 records and no `readersUsed`; an open of a version-1 file
// finds it stale, as any file of another table, and the file is made anew (the old one
// marked superseded first, so that its readers reopen).

/// The `<name>.shared` file: lookup buckets, use stamps and the reader table.
final class SharedFile: @unchecked Sendable {
  // Safety of @unchecked Sendable: the mapping is fixed; every shared word is accessed
  // atomically (see the protocol above).
  static let magic: UInt64 = 0x4552_4148_5347_4D49  // "IMGSHARE"
  static let version: UInt32 = 2
  /// Reader records of a shared file made by an open that asks for no other number.
  static let defaultReaderCount = 1024
  /// The reader records a shared file may have (64 bytes each, reserved on disk).
  static let readerCountRange = 1...65_536
  static let headerSize = 4096
  static let readerRecordSize = 64

  let file: MappedFile
  let capacity: Int
  /// Reader records in this file (fixed when it was made).
  let readerCount: Int
  /// Made by this open (its buckets empty until the writer's scan fills them), not found.
  let isNew: Bool
  let bucketCount: Int
  let bucketMask: Int
  let buckets: UnsafeMutablePointer<Atomic<UInt64>>
  let stamps: UnsafeMutablePointer<Atomic<UInt64>>
  private let readersBase: UnsafeMutableRawPointer
  private let pinsBase: UnsafeMutableRawPointer
  private let pinStride: Int

  struct Geometry {
    var bucketCount: Int
    var bucketsOffset: Int
    var stampsOffset: Int
    var pinsOffset: Int
    var pinStride: Int
    var length: Int

    init(capacity: Int, readerCount: Int) {
      let page = EntryLayout.pageSize
      var buckets = 8
      while buckets < capacity * 2 { buckets *= 2 }
      bucketCount = buckets
      let readersBytes = EntryLayout.roundUp(readerCount * readerRecordSize, to: page)
      bucketsOffset = SharedFile.headerSize + readersBytes
      stampsOffset = bucketsOffset + EntryLayout.roundUp(buckets * 8, to: page)
      pinsOffset = stampsOffset + EntryLayout.roundUp(capacity * 8, to: page)
      pinStride = EntryLayout.roundUp(capacity * 4, to: page)
      length = pinsOffset + readerCount * pinStride
    }
  }

  private init(file: MappedFile, capacity: Int, readerCount: Int, isNew: Bool) {
    let geometry = Geometry(capacity: capacity, readerCount: readerCount)
    self.isNew = isNew
    self.file = file
    self.capacity = capacity
    self.readerCount = readerCount
    bucketCount = geometry.bucketCount
    bucketMask = geometry.bucketCount - 1
    buckets = (file.base + geometry.bucketsOffset).assumingMemoryBound(to: Atomic<UInt64>.self)
    stamps = (file.base + geometry.stampsOffset).assumingMemoryBound(to: Atomic<UInt64>.self)
    readersBase = file.base + Self.headerSize
    pinsBase = file.base + geometry.pinsOffset
    pinStride = geometry.pinStride
  }

  private func word(_ offset: Int) -> UnsafeMutablePointer<Atomic<UInt64>> {
    (file.base + offset).assumingMemoryBound(to: Atomic<UInt64>.self)
  }

  /// Commits so far: the use clock.
  var clock: UnsafeMutablePointer<Atomic<UInt64>> { word(40) }
  /// Non-zero once the writer replaced the table's files.
  var superseded: UnsafeMutablePointer<Atomic<UInt64>> { word(48) }
  /// Records ever claimed (a high-water mark): every claimed record is below it.
  var readersUsed: UnsafeMutablePointer<Atomic<UInt64>> { word(56) }

  func owner(_ reader: Int) -> UnsafeMutablePointer<Atomic<UInt64>> {
    (readersBase + reader * Self.readerRecordSize).assumingMemoryBound(to: Atomic<UInt64>.self)
  }

  func pins(_ reader: Int) -> UnsafeMutablePointer<Atomic<UInt32>> {
    (pinsBase + reader * pinStride).assumingMemoryBound(to: Atomic<UInt32>.self)
  }

  // MARK: Opening

  /// Opens the shared file of the table with `identity`, or nil when it is missing or
  /// belongs to other table files or another layout version (the caller creates a new
  /// one). Its reader count is the file's, whatever this open asks for.
  /// A reader (`readOnly`) of a cache it may only read maps the file copy-on-write.
  static func openExisting(path: String, identity: UInt64, capacity: Int, readOnly: Bool)
    throws(ImageTableError) -> SharedFile?
  {
    var file: MappedFile
    do {
      // A cache this process may only read (another user's, a read-only mount): its
      // pins and stamps stay private, so a writer in another process cannot see them,
      // but its hits are still checked against the index as any reader's.
      // Mapped first as it is, for the header; then for its largest length.
      file = try MappedFile(
        path: path, create: false, writable: true, permissions: 0o644, reservedLength: 0,
        privateCopyWhenDenied: readOnly)
    } catch .io(_, _, let message) where message == String(cString: strerror(ENOENT)) {
      return nil
    }
    guard file.length >= headerSize, file.base.field(0, as: UInt64.self) == magic,
      file.base.field(8, as: UInt32.self) == version
    else { return nil }
    let readerCount = Int(file.base.field(12, as: UInt32.self))
    guard readerCountRange.contains(readerCount) else { return nil }
    let geometry = Geometry(capacity: capacity, readerCount: readerCount)
    if geometry.length > file.reservedLength {
      file = try MappedFile(
        path: path, create: false, writable: true, permissions: 0o644,
        reservedLength: geometry.length, privateCopyWhenDenied: readOnly)
    }
    // The mark is read before the length: claims grow the file before they raise it.
    let used = (file.base + 56).assumingMemoryBound(to: Atomic<UInt64>.self).pointee.load(
      ordering: .sequentiallyConsistent)
    var status = stat()
    guard fstat(file.descriptor, &status) == 0 else { return nil }
    let length = Int(status.st_size)
    guard length >= geometry.pinsOffset, used <= UInt64(readerCount),
      length >= geometry.pinsOffset + Int(used) * geometry.pinStride,
      file.base.field(16, as: UInt64.self) == identity,
      file.base.field(24, as: UInt64.self) == UInt64(capacity),
      file.base.field(32, as: UInt64.self) == UInt64(geometry.bucketCount)
    else { return nil }
    let shared = SharedFile(file: file, capacity: capacity, readerCount: readerCount, isNew: false)
    guard shared.superseded.pointee.load(ordering: .acquiring) == 0 else { return nil }
    return shared
  }

  /// Creates a new shared file for the table with `identity`, with `readerCount` reader
  /// records, and puts it in place of any old one, which is marked superseded first so
  /// that its readers reopen.
  static func create(path: String, identity: UInt64, capacity: Int, readerCount: Int)
    throws(ImageTableError) -> SharedFile
  {
    let geometry = Geometry(capacity: capacity, readerCount: readerCount)
    var generator = SystemRandomNumberGenerator()
    let temporary = path + ".new-\(String(generator.next() as UInt64, radix: 16))"
    let file = try MappedFile(
      path: temporary, create: true, writable: true, permissions: 0o644,
      reservedLength: geometry.length)
    do {
      // The header, the reader records, the buckets and the stamps are reserved on
      // disk now; a reader's pin array when a claim first reaches its record.
      try file.grow(to: geometry.pinsOffset)
    } catch {
      unlink(temporary)
      throw error
    }
    file.base.setField(0, magic)
    file.base.setField(8, version)
    file.base.setField(12, UInt32(readerCount))
    file.base.setField(16, identity)
    file.base.setField(24, UInt64(capacity))
    file.base.setField(32, UInt64(geometry.bucketCount))
    if let old = try? MappedFile(
      path: path, create: false, writable: true, permissions: 0o644, reservedLength: 0),
      old.length >= headerSize, old.base.field(0, as: UInt64.self) == magic
    {
      (old.base + 48).assumingMemoryBound(to: Atomic<UInt64>.self).pointee.store(
        1, ordering: .releasing)
    }
    guard rename(temporary, path) == 0 else {
      let failure = MappedFile.error(path, "rename")
      unlink(temporary)
      throw failure
    }
    return SharedFile(file: file, capacity: capacity, readerCount: readerCount, isNew: true)
  }

  // MARK: Readers

  /// Claims a free reader record for this process (clearing those of dead processes
  /// when none is free) and reserves its pin array on disk; nil when every record is
  /// held by a live process.
  func claimReader() throws(ImageTableError) -> Int? {
    guard !file.isPrivateCopy else { return nil }
    let pid = UInt64(getpid())
    for attempt in 0..<2 {
      if let reader = try claimFreeRecord(pid: pid) {
        // Read after the claim, in the single order of seq_cst operations: a writer
        // growing the reader table either sees this claim or is seen here (the
        // instance then reopens by path at its first lookup).
        _ = superseded.pointee.load(ordering: .sequentiallyConsistent)
        return reader
      }
      if attempt == 0 { reclaimDeadReaders() }
    }
    return nil
  }

  /// A free record below the high-water mark, else the next one above it (its pins
  /// put inside the file first).
  private func claimFreeRecord(pid: UInt64) throws(ImageTableError) -> Int? {
    while true {
      let used = usedRecords.upperBound
      for reader in 0..<used
      where owner(reader).pointee.compareExchange(
        expected: 0, desired: pid, ordering: .sequentiallyConsistent
      ).exchanged {
        return reader
      }
      guard used < readerCount else { return nil }
      let offset = pins(used) - (file.base).assumingMemoryBound(to: Atomic<UInt32>.self)
      try file.reserve(offset: offset * 4, length: pinStride)
      // Raise the mark by one and claim the record it uncovers (unless another claim
      // below the mark took it first: then look again).
      if readersUsed.pointee.compareExchange(
        expected: UInt64(used), desired: UInt64(used + 1), ordering: .sequentiallyConsistent
      ).exchanged,
        owner(used).pointee.compareExchange(
          expected: 0, desired: pid, ordering: .sequentiallyConsistent
        ).exchanged
      {
        return used
      }
    }
  }

  /// The records claimed below the high-water mark (for the writer's scans).
  private var usedRecords: Range<Int> {
    0..<Int(min(readersUsed.pointee.load(ordering: .sequentiallyConsistent), UInt64(readerCount)))
  }

  /// For a writer that wants more reader records than this file has: whether no live
  /// process holds a record, in which case the file is left superseded (the caller puts
  /// a new one in its place); else it is kept as it was. See the protocol above.
  func supersedeIfUnread() -> Bool {
    reclaimDeadReaders()
    superseded.pointee.store(1, ordering: .sequentiallyConsistent)
    for reader in usedRecords
    where owner(reader).pointee.load(ordering: .sequentiallyConsistent) != 0 {
      superseded.pointee.store(0, ordering: .sequentiallyConsistent)
      return false
    }
    return true
  }

  /// Records held now by live processes (for reports and tests).
  var heldRecords: Int {
    usedRecords.count { owner($0).pointee.load(ordering: .relaxed) != 0 }
  }

  /// Gives back a reader record: its pins are cleared first, then the record.
  func releaseReader(_ reader: Int) {
    memset(UnsafeMutableRawPointer(pins(reader)), 0, capacity * 4)
    owner(reader).pointee.store(0, ordering: .sequentiallyConsistent)
  }

  /// Clears the records of processes that no longer exist.
  func reclaimDeadReaders() {
    for reader in usedRecords {
      let pid = owner(reader).pointee.load(ordering: .sequentiallyConsistent)
      if pid != 0, Self.isDead(pid) {
        memset(UnsafeMutableRawPointer(pins(reader)), 0, capacity * 4)
        _ = owner(reader).pointee.compareExchange(
          expected: pid, desired: 0, ordering: .sequentiallyConsistent)
      }
    }
  }

  static func isDead(_ pid: UInt64) -> Bool {
    guard let value = Int32(exactly: pid), value > 0 else { return true }
    return kill(value, 0) != 0 && errno == ESRCH
  }

  /// Whether any live reader (in any process) pins `slot`. Records of dead processes
  /// found pinning it are cleared.
  func isPinned(_ slot: Int) -> Bool {
    for reader in usedRecords {
      let pid = owner(reader).pointee.load(ordering: .sequentiallyConsistent)
      guard pid != 0, pins(reader)[slot].load(ordering: .sequentiallyConsistent) != 0 else {
        continue
      }
      if Self.isDead(pid) {
        memset(UnsafeMutableRawPointer(pins(reader)), 0, capacity * 4)
        _ = owner(reader).pointee.compareExchange(
          expected: pid, desired: 0, ordering: .sequentiallyConsistent)
        continue
      }
      return true
    }
    return false
  }

  // MARK: Buckets (written by the writer only)

  static func tag(_ hash: UInt64) -> UInt64 { hash & 0xFFFF_FFFF_0000_0000 }

  func insert(slot: Int, hash: UInt64) {
    var bucket = Int(truncatingIfNeeded: hash) & bucketMask
    while buckets[bucket].load(ordering: .relaxed) != 0 { bucket = (bucket + 1) & bucketMask }
    buckets[bucket].store(Self.tag(hash) | UInt64(slot + 1), ordering: .releasing)
  }

  /// Removes `slot`'s bucket by shifting later buckets of the run back (no tombstones).
  func remove(slot: Int, hash: UInt64, homeHashes: [UInt64]) {
    var bucket = Int(truncatingIfNeeded: hash) & bucketMask
    let wanted = Self.tag(hash) | UInt64(slot + 1)
    while true {
      let value = buckets[bucket].load(ordering: .relaxed)
      if value == 0 { return }
      if value == wanted { break }
      bucket = (bucket + 1) & bucketMask
    }
    var hole = bucket
    var next = (hole + 1) & bucketMask
    while true {
      let value = buckets[next].load(ordering: .relaxed)
      if value == 0 { break }
      // The id hash of the entry in `next` decides where it may move: its home bucket.
      // A bucket naming no slot (damaged: nothing is trusted from a bucket) stays put.
      let slot = Int(value & 0xFFFF_FFFF) - 1
      let home =
        homeHashes.indices.contains(slot)
        ? Int(truncatingIfNeeded: homeHashes[slot]) & bucketMask : next
      let distanceToNext = (next - home) & bucketMask
      let distanceToHole = (hole - home) & bucketMask
      if distanceToHole < distanceToNext {
        buckets[hole].store(value, ordering: .releasing)
        hole = next
      }
      next = (next + 1) & bucketMask
    }
    buckets[hole].store(0, ordering: .releasing)
  }

  func clearBuckets() {
    memset(UnsafeMutableRawPointer(buckets), 0, bucketCount * 8)
  }
}

extension SharedFile {
  /// Fills the buckets of a new shared file from the committed records (for a reader
  /// that made the file while no writer ran); the newest record of an id is found first.
  func insertCommitted(index: MappedFile, headerSize: Int, format: ImageFormat, table: MappedFile) {
    let layout = format.layout
    let tableSlots = max(0, (table.length - headerSize) / layout.entryStride)
    let indexSlots = max(
      0, (index.length - TableFileLayout.indexHeaderSize) / TableFileLayout.recordSize)
    let count = min(tableSlots, indexSlots, capacity)
    var found: [(order: UInt64, slot: Int, hash: UInt64)] = []
    for slot in 0..<count {
      guard let record = IndexRecord.read(slot: slot, from: index.base).0,
        record.sequence & 3 == 0
      else { continue }
      found.append((record.writeOrder, slot, record.idHash))
    }
    for entry in found.sorted(by: { $0.order > $1.order }) {
      insert(slot: entry.slot, hash: entry.hash)
    }
  }
}

import Foundation
import Synchronization

/// The writer's memory of a table, kept on disk when a writer closes cleanly, so that
/// the next writer's open reads it instead of scanning every index record.
///
/// ```
/// <name>.summary   header (80) | slot 0 | slot 1 | ...   (40 bytes each)
/// ```
///
/// Header: magic `IMGSUMRY`, version, identity (the table's), generation, slot count,
/// write order, live count, newest and oldest slot, and (at 64) a checksum of the
/// header's first 64 bytes, every slot and the shared file's lookup buckets as the writer
/// left them. A slot: sequence, id hash, list stamp, older and newer neighbour, phase.
///
/// It is trusted only when three stamps agree: the index header's generation (offset
/// 40), bumped by every writer's open, its clean stamp (offset 48), set to that
/// generation by a clean close after the summary is in place and cleared by every
/// writer's open before it changes anything, and the shared file's (offset 64), whose
/// buckets the summary leaves as they are. A writer killed at any instant leaves the
/// clean stamp cleared, so the next writer scans (and clears torn writes); a shared
/// file made anew, files cut short, a bucket changed since the clean close (damage: a
/// writer trusting it would miss an entry it holds and write it a second time), or a
/// summary of other bytes (its checksum, its identity, generation or slot count) also
/// mean a scan.
enum WriterSummary {
  static let magic: UInt64 = 0x5952_4D55_5347_4D49  // "IMGSUMRY"
  static let version: UInt32 = 2
  static let headerSize = 80
  static let slotSize = 40
  static let indexGenerationOffset = 40
  static let indexCleanOffset = 48
  static let sharedGenerationOffset = 64

  static func path(indexPath: String) -> String {
    String(indexPath.dropLast(".index".count)) + ".summary"
  }

  static func word(_ base: UnsafeMutableRawPointer, _ offset: Int) -> UnsafeMutablePointer<
    Atomic<UInt64>
  > {
    (base + offset).assumingMemoryBound(to: Atomic<UInt64>.self)
  }

  /// Starts a writer's session on `files`: returns the generation the last writer closed
  /// cleanly at (nil when it did not), and clears the clean stamp, under a new
  /// generation, before anything is changed.
  static func beginSession(_ files: TableFiles) -> UInt64? {
    let generation = word(files.index.base, indexGenerationOffset).pointee.load(
      ordering: .acquiring)
    let clean = word(files.index.base, indexCleanOffset).pointee.load(ordering: .acquiring)
    word(files.index.base, indexCleanOffset).pointee.store(0, ordering: .sequentiallyConsistent)
    word(files.index.base, indexGenerationOffset).pointee.store(
      generation &+ 1, ordering: .sequentiallyConsistent)
    let shared = word(files.shared.file.base, sharedGenerationOffset).pointee.load(
      ordering: .acquiring)
    guard generation != 0, clean == generation, shared == generation else { return nil }
    return generation
  }
}

extension TableState {
  /// The state the summary at `path` holds for `files`, closed cleanly at `generation`;
  /// nil when the summary is missing or does not describe these files exactly.
  static func loadSummary(path: String, files: TableFiles, generation: UInt64) -> TableState? {
    guard files.lengthProblem() == nil, files.cutShortProblems().isEmpty else { return nil }
    let count = files.slotCount()
    let length = WriterSummary.headerSize + count * WriterSummary.slotSize
    let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, Int(status.st_size) == length else { return nil }
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: 8)
    defer { buffer.deallocate() }
    var done = 0
    while done < length {
      let got = read(descriptor, buffer + done, length - done)
      guard got > 0 else { return nil }
      done += got
    }
    guard buffer.field(0, as: UInt64.self) == WriterSummary.magic,
      buffer.field(8, as: UInt32.self) == WriterSummary.version,
      buffer.field(16, as: UInt64.self) == files.identity,
      buffer.field(24, as: UInt64.self) == generation,
      buffer.field(32, as: UInt64.self) == UInt64(count),
      checksum(buffer, length: length, shared: files.shared) == buffer.field(64, as: UInt64.self)
    else { return nil }
    var state = TableState(files: files)
    state.writeOrder = buffer.field(40)
    let live = Int(buffer.field(48, as: UInt64.self))
    state.newest = buffer.field(56)
    state.oldest = buffer.field(60)
    guard live <= count, (-1..<Int32(count)).contains(state.newest),
      (-1..<Int32(count)).contains(state.oldest)
    else { return nil }
    state.liveCount = live
    state.slots = Array(repeating: Slot(), count: count)
    state.homeHashes = Array(repeating: 0, count: count)
    var liveSeen = 0
    let range = -1..<Int32(count)
    for slot in 0..<count {
      let field = buffer + WriterSummary.headerSize + slot * WriterSummary.slotSize
      let older: Int32 = field.field(24)
      let newer: Int32 = field.field(28)
      let phaseCode: UInt64 = field.field(32)
      let sequence: UInt64 = field.field(0)
      guard range.contains(older), range.contains(newer), phaseCode <= 1,
        // The index as the summary left it: a record changed since (damaged, or made to
        // look mid-write) means a scan, which names and clears it.
        files.sequence(slot).pointee.load(ordering: .acquiring) == sequence
      else { return nil }
      let idHash: UInt64 = field.field(8)
      state.slots[slot] = Slot(
        phase: phaseCode == 1 ? .live : .free, idHash: idHash, older: older, newer: newer,
        listStamp: field.field(16), sequence: sequence)
      if phaseCode == 1 {
        state.homeHashes[slot] = idHash
        liveSeen += 1
      }
    }
    guard liveSeen == live else { return nil }
    files.shared.reclaimDeadReaders()
    for slot in (0..<count).reversed() where state.slots[slot].phase == .free {
      if files.shared.isPinned(slot) {
        state.slots[slot].phase = .retired
        state.retired.append(Int32(slot))
      } else {
        state.freeSlots.append(Int32(slot))
      }
    }
    return state
  }

  /// Writes this state as the summary at `path` and stamps the index and shared file
  /// clean at the session's generation (the summary first, the index's stamp last).
  /// Writes nothing when a slot is still reserved: the next writer scans then.
  func writeSummary(path: String, permissions: mode_t) {
    guard !slots.contains(where: { $0.phase == .reserved }) else { return }
    let index = files.index.base
    let generation = WriterSummary.word(index, WriterSummary.indexGenerationOffset).pointee.load(
      ordering: .acquiring)
    guard generation != 0 else { return }
    let count = slots.count
    let length = WriterSummary.headerSize + count * WriterSummary.slotSize
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: 8)
    defer { buffer.deallocate() }
    buffer.initializeMemory(as: UInt8.self, repeating: 0, count: WriterSummary.headerSize)
    buffer.setField(0, WriterSummary.magic)
    buffer.setField(8, WriterSummary.version)
    buffer.setField(16, files.identity)
    buffer.setField(24, generation)
    buffer.setField(32, UInt64(count))
    buffer.setField(40, writeOrder)
    buffer.setField(48, UInt64(liveCount))
    buffer.setField(56, newest)
    buffer.setField(60, oldest)
    for (number, slot) in slots.enumerated() {
      let field = buffer + WriterSummary.headerSize + number * WriterSummary.slotSize
      let live = slot.phase == .live
      field.setField(0, slot.sequence)
      field.setField(8, live ? slot.idHash : 0)
      field.setField(16, live ? slot.listStamp : 0)
      field.setField(24, live ? slot.older : -1)
      field.setField(28, live ? slot.newer : -1)
      field.setField(32, UInt64(live ? 1 : 0))
    }
    buffer.setField(64, Self.checksum(buffer, length: length, shared: files.shared))
    var generator = SystemRandomNumberGenerator()
    let temporary = path + ".new-\(String(generator.next() as UInt64, radix: 16))"
    let descriptor = open(
      temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
      permissions)
    guard descriptor >= 0 else { return }
    var done = 0
    while done < length {
      let wrote = write(descriptor, buffer + done, length - done)
      guard wrote > 0 else { break }
      done += wrote
    }
    close(descriptor)
    guard done == length, rename(temporary, path) == 0 else {
      unlink(temporary)
      return
    }
    WriterSummary.word(files.shared.file.base, WriterSummary.sharedGenerationOffset).pointee.store(
      generation, ordering: .sequentiallyConsistent)
    WriterSummary.word(index, WriterSummary.indexCleanOffset).pointee.store(
      generation, ordering: .sequentiallyConsistent)
  }

  /// The summary's checksum: its header's first 64 bytes and its slots, seeded with the
  /// shared file's buckets (only a writer changes them, and it holds the lock here).
  private static func checksum(
    _ buffer: UnsafeMutableRawPointer, length: Int, shared: SharedFile
  ) -> UInt64 {
    let buckets = Checksum.hash(
      UnsafeRawBufferPointer(start: UnsafeRawPointer(shared.buckets), count: shared.bucketCount * 8)
    )
    let header = Checksum.hash(UnsafeRawBufferPointer(start: buffer, count: 64), seed: buckets)
    return Checksum.hash(
      UnsafeRawBufferPointer(
        start: buffer + WriterSummary.headerSize, count: length - WriterSummary.headerSize),
      seed: header)
  }
}

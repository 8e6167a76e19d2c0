import Synchronization

/// One slot of a table, as the table's memory knows it.
struct Slot {
  enum Phase { case free, reserved, live, retired }
  var phase: Phase = .free
  /// The view handed to readers; while anyone else holds it, the slot is pinned.
  var bitmap: Bitmap? = nil
  var idHash: UInt64 = 0
  var chainNext: Int32 = -1
  /// Neighbours in least-recently-used order (towards oldest, towards newest).
  var older: Int32 = -1
  var newer: Int32 = -1
  var verified = false
  var sequence: UInt64 = 0
}

/// A slot handed to one writer, outside the lock, while it draws.
struct Reservation {
  let slot: Int
  let table: MappedFile
  let generation: Int
  let sequence: UInt64
}

/// Everything a table knows in memory; always used under the table's lock.
struct TableState {
  var table: MappedFile
  var index: MappedFile
  /// Bumped by reset, so that writes begun before it are not committed after it.
  var generation: Int
  var slots: [Slot] = []
  /// Entity id hash to the first slot of its chain (ids that hash alike share one).
  var chains: [UInt64: Int32] = [:]
  var newest: Int32 = -1
  var oldest: Int32 = -1
  var liveCount = 0
  var freeSlots: [Int32] = []
  /// Slots removed while a Bitmap still viewed them; free once nobody does.
  var retired: [Int32] = []
  var writeOrder: UInt64 = 0
  var openProblems: [VerificationReport.Problem] = []

  init(table: MappedFile, index: MappedFile, generation: Int = 0) {
    self.table = table
    self.index = index
    self.generation = generation
  }

  // MARK: Opening

  /// Builds the in-memory index from the records on disk. Torn or damaged records are
  /// reported and cleared; of two records for one id (a crash between committing a
  /// replacement and clearing the old one) the newer wins.
  mutating func scan(
    format: ImageFormat, layout: EntryLayout, headerSize: Int, readOnly: Bool,
    hash: (String) -> UInt64, events: inout [ImageTableEvent]
  ) {
    let tableSlots = max(0, (table.length - headerSize) / layout.entryStride)
    let indexSlots = max(
      0, (index.length - TableFileLayout.indexHeaderSize) / TableFileLayout.recordSize)
    let count = min(tableSlots, indexSlots, format.maximumCount)
    slots = Array(repeating: Slot(), count: count)
    var found: [(order: UInt64, slot: Int)] = []
    for slot in 0..<count {
      let (record, problem) = IndexRecord.read(slot: slot, from: index.base)
      var reason = problem
      if let record,
        record.width > layout.width || record.height > layout.height || record.width < 1
          || record.height < 1
      {
        reason = "its size \(record.width)x\(record.height) does not fit the slot"
      }
      if let record, reason == nil, record.idHash != hash(record.entityID) {
        reason = "its id hash does not match its id"
      }
      if let reason {
        openProblems.append(.init(slot: slot, entityID: record?.entityID, reason: reason))
        events.append(
          .corruptEntry(format: format.name, slot: slot, entityID: record?.entityID, reason: reason)
        )
        if !readOnly { IndexRecord.setSequence(0, slot: slot, in: index.base) }
        continue
      }
      guard let record else { continue }
      if let existing = find(record.entityID, hash: record.idHash) {
        // Two records for one id: keep the later write.
        let existingOrder = IndexRecord.read(slot: existing, from: index.base).0?.writeOrder ?? 0
        let loser = existingOrder > record.writeOrder ? slot : existing
        if loser == existing {
          detach(existing)
          slots[existing] = Slot()
        } else {
          if !readOnly { IndexRecord.setSequence(0, slot: slot, in: index.base) }
          continue
        }
        if !readOnly { IndexRecord.setSequence(0, slot: loser, in: index.base) }
        found.removeAll { $0.slot == loser }
      }
      let base = table.base + headerSize + slot * layout.entryStride
      slots[slot].bitmap = Bitmap(
        base: UnsafeRawPointer(base), mapping: table, width: record.width, height: record.height,
        bytesPerRow: layout.bytesPerRow, style: layout.style, entityID: record.entityID,
        sourceVersion: record.sourceVersion)
      slots[slot].phase = .live
      slots[slot].idHash = record.idHash
      slots[slot].sequence = record.sequence
      link(slot)
      found.append((record.writeOrder, slot))
      writeOrder = max(writeOrder, record.writeOrder)
    }
    // Least recently used order across a reopen: the order entries were written.
    newest = -1
    oldest = -1
    for (_, slot) in found.sorted(by: { $0.order < $1.order }) { pushNewest(slot) }
    liveCount = found.count
    freeSlots = (0..<count).reversed().filter { slots[$0].phase == .free }.map { Int32($0) }
  }

  // MARK: Lookup

  func find(_ entityID: String, hash: UInt64) -> Int? {
    var slot = chains[hash] ?? -1
    while slot >= 0 {
      if let bitmap = slots[Int(slot)].bitmap, slots[Int(slot)].phase == .live,
        bitmap.entityID == entityID
      {
        return Int(slot)
      }
      slot = slots[Int(slot)].chainNext
    }
    return nil
  }

  /// Checks the entry's pixels against its record's checksum; the problem, or nil.
  func verifyPixels(_ slot: Int, layout: EntryLayout, headerSize: Int) -> String? {
    guard let bitmap = slots[slot].bitmap else { return "its slot is empty" }
    guard headerSize + (slot + 1) * layout.entryStride <= table.length else {
      return "the table file is cut short"
    }
    let expected = (index.base + TableFileLayout.recordOffset(slot)).field(32, as: UInt64.self)
    let actual = Checksum.hash(
      UnsafeRawBufferPointer(start: bitmap.base, count: layout.bytesPerRow * bitmap.height))
    return actual == expected ? nil : "its pixels fail their checksum"
  }

  /// Marks the slot most recently used.
  mutating func touch(_ slot: Int) {
    guard newest != Int32(slot) else { return }
    unlinkLRU(slot)
    pushNewest(slot)
  }

  func lruOrder() -> [Int] {
    var order: [Int] = []
    var slot = oldest
    while slot >= 0 {
      order.append(Int(slot))
      slot = slots[Int(slot)].newer
    }
    return order
  }

  // MARK: Removal

  /// Takes a live slot out of the index and the LRU list.
  mutating func detach(_ slot: Int) {
    let hash = slots[slot].idHash
    var previous: Int32 = -1
    var current = chains[hash] ?? -1
    while current >= 0, current != Int32(slot) {
      previous = current
      current = slots[Int(current)].chainNext
    }
    if current == Int32(slot) {
      if previous >= 0 {
        slots[Int(previous)].chainNext = slots[slot].chainNext
      } else if slots[slot].chainNext >= 0 {
        chains[hash] = slots[slot].chainNext
      } else {
        chains[hash] = nil
      }
    }
    slots[slot].chainNext = -1
    unlinkLRU(slot)
    if slots[slot].phase == .live { liveCount -= 1 }
  }

  /// Removes a live entry: its record is cleared on disk at once; its slot is free
  /// now if no Bitmap views it, or retired until none does.
  mutating func remove(_ slot: Int, readOnly: Bool) {
    detach(slot)
    if !readOnly { IndexRecord.setSequence(0, slot: slot, in: index.base) }
    release(slot, readOnly: readOnly)
  }

  mutating func release(_ slot: Int, readOnly: Bool) {
    if isKnownUniquelyReferenced(&slots[slot].bitmap) || slots[slot].bitmap == nil {
      slots[slot] = Slot()
      freeSlots.append(Int32(slot))
    } else {
      slots[slot].phase = .retired
      retired.append(Int32(slot))
    }
  }

  // MARK: Writing

  /// Finds a slot for a new entry: a free one, a grown one, a retired one nobody views
  /// any more, or the least recently used entry nobody views. Marks its record as
  /// being written (odd sequence), so a crash while drawing leaves a miss.
  mutating func reserve(format: ImageFormat, layout: EntryLayout, headerSize: Int)
    throws(ImageTableError) -> Reservation
  {
    reclaimRetired()
    if freeSlots.isEmpty, slots.count < format.maximumCount {
      try grow(format: format, layout: layout, headerSize: headerSize)
    }
    var chosen = freeSlots.popLast().map(Int.init)
    if chosen == nil {
      var candidate = oldest
      while candidate >= 0 {
        let slot = Int(candidate)
        candidate = slots[slot].newer
        if isKnownUniquelyReferenced(&slots[slot].bitmap) {
          detach(slot)
          slots[slot] = Slot()
          chosen = slot
          break
        }
      }
    }
    guard let slot = chosen else {
      throw .noFreeSlot(format: format.name, capacity: format.maximumCount)
    }
    let old = IndexRecord.sequence(slot: slot, in: index.base)
    let sequence = old | 1 == old ? old + 2 : old + 1
    IndexRecord.setSequence(sequence, slot: slot, in: index.base)
    atomicMemoryFence(ordering: .sequentiallyConsistent)
    slots[slot].phase = .reserved
    return Reservation(
      slot: slot, table: table, generation: generation, sequence: sequence)
  }

  /// Gives back a reserved slot whose drawing failed.
  mutating func abandon(_ reservation: Reservation) {
    guard reservation.generation == generation else { return }
    IndexRecord.setSequence(0, slot: reservation.slot, in: index.base)
    slots[reservation.slot] = Slot()
    freeSlots.append(Int32(reservation.slot))
  }

  /// Publishes a drawn entry: the record is written and its checksum set, then its
  /// sequence made even; only then does the index serve it. An entry the same id had
  /// is removed after.
  mutating func commit(_ reservation: Reservation, bitmap: Bitmap, hash: UInt64, checksum: UInt64) {
    guard reservation.generation == generation else { return }  // reset while drawing
    let slot = reservation.slot
    writeOrder += 1
    let committed = reservation.sequence + 1
    atomicMemoryFence(ordering: .sequentiallyConsistent)
    IndexRecord(
      sequence: committed, idHash: hash, entityID: bitmap.entityID,
      sourceVersion: bitmap.sourceVersion, width: bitmap.width, height: bitmap.height,
      pixelChecksum: checksum, writeOrder: writeOrder
    ).writeFields(slot: slot, to: index.base)
    atomicMemoryFence(ordering: .sequentiallyConsistent)
    IndexRecord.setSequence(committed, slot: slot, in: index.base)
    atomicMemoryFence(ordering: .sequentiallyConsistent)
    if let previous = find(bitmap.entityID, hash: hash) { remove(previous, readOnly: false) }
    slots[slot].phase = .live
    slots[slot].bitmap = bitmap
    slots[slot].idHash = hash
    slots[slot].sequence = committed
    slots[slot].verified = true
    link(slot)
    pushNewest(slot)
    liveCount += 1
  }

  private mutating func reclaimRetired() {
    retired.removeAll { slot in
      guard isKnownUniquelyReferenced(&slots[Int(slot)].bitmap) else { return false }
      slots[Int(slot)] = Slot()
      freeSlots.append(slot)
      return true
    }
  }

  /// Grows both files by a step (doubling, at least 8 entries, at most maximumCount).
  private mutating func grow(format: ImageFormat, layout: EntryLayout, headerSize: Int)
    throws(ImageTableError)
  {
    let count = min(format.maximumCount, max(8, slots.count * 2))
    try index.grow(to: TableFileLayout.recordOffset(count))
    try table.grow(to: headerSize + count * layout.entryStride)
    freeSlots.insert(contentsOf: (slots.count..<count).reversed().map { Int32($0) }, at: 0)
    slots.append(contentsOf: repeatElement(Slot(), count: count - slots.count))
  }

  // MARK: Lists

  private mutating func link(_ slot: Int) {
    let hash = slots[slot].idHash
    slots[slot].chainNext = chains[hash] ?? -1
    chains[hash] = Int32(slot)
  }

  private mutating func pushNewest(_ slot: Int) {
    slots[slot].older = newest
    slots[slot].newer = -1
    if newest >= 0 { slots[Int(newest)].newer = Int32(slot) }
    newest = Int32(slot)
    if oldest < 0 { oldest = Int32(slot) }
  }

  private mutating func unlinkLRU(_ slot: Int) {
    let older = slots[slot].older
    let newer = slots[slot].newer
    if older >= 0 {
      slots[Int(older)].newer = newer
    } else if oldest == Int32(slot) {
      oldest = newer
    }
    if newer >= 0 {
      slots[Int(newer)].older = older
    } else if newest == Int32(slot) {
      newest = older
    }
    slots[slot].older = -1
    slots[slot].newer = -1
  }
}

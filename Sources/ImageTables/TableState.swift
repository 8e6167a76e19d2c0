import Synchronization

/// One slot of a table, as the writer's memory knows it.
struct Slot {
  enum Phase { case free, reserved, live, retired }
  var phase: Phase = .free
  /// The entry's id is its record's (compared in the index by ``TableState/find``):
  /// the slot holds fixed-width fields only, so the summary stores it as it is.
  var idHash: UInt64 = 0
  /// Neighbours in least-recently-used order (towards oldest, towards newest).
  var older: Int32 = -1
  var newer: Int32 = -1
  /// The use stamp the slot had when it took its place in the list; a larger stamp in
  /// the shared file means a hit (in any process) used it since.
  var listStamp: UInt64 = 0
  var sequence: UInt64 = 0
}

/// A slot handed to one writer, outside the lock, while it draws.
struct Reservation {
  let slot: Int
  let files: TableFiles
  let generation: Int
  let sequence: UInt64
}

/// What the writer knows in memory; always used under the table's lock. Readers (in
/// this process or others) never look at it: they go through the shared file.
struct TableState {
  var files: TableFiles
  /// Bumped by reset, so that writes begun before it are not committed after it.
  var generation: Int
  var slots: [Slot] = []
  /// The id hash of each slot's entry, for moving buckets when one is removed.
  var homeHashes: [UInt64] = []
  var newest: Int32 = -1
  var oldest: Int32 = -1
  var liveCount = 0
  var freeSlots: [Int32] = []
  /// Slots removed while some reader (any process) still pins them.
  var retired: [Int32] = []
  var writeOrder: UInt64 = 0
  var openProblems: [VerificationReport.Problem] = []

  init(files: TableFiles, generation: Int = 0) {
    self.files = files
    self.generation = generation
  }

  /// The next sequence in `state` (0 committed, 1 writing, 2 removed) after `current`:
  /// sequences only grow.
  static func next(after current: UInt64, state: UInt64) -> UInt64 {
    let step = (state &+ 4 &- (current & 3)) & 3
    return current + (step == 0 ? 4 : step)
  }

  // MARK: Opening

  /// Builds the writer's memory and the shared buckets from the records on disk. Torn
  /// or damaged records are reported and marked removed; of two records for one id (a
  /// crash between committing a replacement and removing the old one) the newer wins.
  ///
  /// With `checkingBuckets` (a shared file found, not made now), the lookup buckets as
  /// found are checked against the records kept before they are made again, and any
  /// difference is reported.
  mutating func scan(
    format: ImageFormat, hash: (String) -> UInt64, checkingBuckets: Bool = false,
    events: inout [ImageTableEvent]
  ) {
    noteCutShortFiles(format: format, events: &events)
    let count = files.slotCount()
    slots = Array(repeating: Slot(), count: count)
    homeHashes = Array(repeating: 0, count: count)
    var found: [(order: UInt64, slot: Int)] = []
    var byID: [String: Int] = [:]
    let layout = files.layout
    // Slots that held a record of any kind when the scan began (some are marked removed
    // below: torn, damaged, or an older record of an id).
    var heldRecord = [Bool](repeating: false, count: count)
    for slot in 0..<count {
      let sequence = files.sequence(slot).pointee.load(ordering: .acquiring)
      slots[slot].sequence = sequence
      heldRecord[slot] = !TableFileLayout.isVacant(sequence)
      if TableFileLayout.isVacant(sequence) { continue }
      let (record, problem) = IndexRecord.read(slot: slot, from: files.index.base)
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
      guard let record, reason == nil else {
        let reason = reason ?? "its record is empty"
        openProblems.append(.init(slot: slot, entityID: record?.entityID, reason: reason))
        events.append(
          .corruptEntry(format: format.name, slot: slot, entityID: record?.entityID, reason: reason)
        )
        markRemoved(slot)
        continue
      }
      if let existing = byID[record.entityID] {
        // Two records for one id: keep the later write.
        let existingOrder = IndexRecord.read(slot: existing, from: files.index.base).0?.writeOrder
        if let existingOrder, existingOrder > record.writeOrder {
          markRemoved(slot)
          continue
        }
        markRemoved(existing)
        slots[existing] = Slot(sequence: slots[existing].sequence)
        found.removeAll { $0.slot == existing }
      }
      byID[record.entityID] = slot
      slots[slot].phase = .live
      slots[slot].idHash = record.idHash
      homeHashes[slot] = record.idHash
      found.append((record.writeOrder, slot))
      writeOrder = max(writeOrder, record.writeOrder)
    }
    if checkingBuckets {
      let problems = files.bucketProblems(
        byID.map { .init(slot: $0.value, idHash: slots[$0.value].idHash, entityID: $0.key) },
        heldSomething: { heldRecord[$0] })
      if !problems.isEmpty {
        events.append(.lookupBucketsDamaged(format: format.name, problems: problems, rebuilt: true))
      }
    }
    // Least recently used order across a reopen: the order entries were written.
    files.shared.clearBuckets()
    // The clock starts past the entries' stamps (0): a hit before the next commit
    // stamps 1 and so counts as a use.
    files.shared.clock.pointee.store(1, ordering: .relaxed)
    for (_, slot) in found.sorted(by: { $0.order < $1.order }) {
      files.shared.stamps[slot].store(0, ordering: .relaxed)
      pushNewest(slot, stamp: 0)
      files.shared.insert(slot: slot, hash: slots[slot].idHash)
    }
    liveCount = found.count
    files.shared.reclaimDeadReaders()
    for slot in (0..<count).reversed() where slots[slot].phase == .free {
      if files.shared.isPinned(slot) {
        slots[slot].phase = .retired
        retired.append(Int32(slot))
      } else {
        freeSlots.append(Int32(slot))
      }
    }
  }

  /// Reports what files cut short lost (a copy interrupted, a full disk): an index
  /// shorter than the table (grown back to the table's slots, its new records vacant),
  /// and the committed records past the table's end (marked removed: their pixels are
  /// gone). Nothing past the files' lengths is read.
  private mutating func noteCutShortFiles(format: ImageFormat, events: inout [ImageTableEvent]) {
    let problems = files.cutShortProblems()
    for problem in problems {
      openProblems.append(problem)
      events.append(
        .corruptEntry(
          format: format.name, slot: problem.slot, entityID: problem.entityID,
          reason: problem.reason))
      if problem.reason == TableFiles.pixelsCutShort {
        let sequence = files.sequence(problem.slot).pointee.load(ordering: .acquiring)
        files.sequence(problem.slot).pointee.store(
          Self.next(after: sequence, state: 2), ordering: .sequentiallyConsistent)
      }
    }
    if files.lengthProblem() != nil {
      // If this fails (a full disk), the slots past the index stay unused.
      try? files.index.grow(to: TableFileLayout.recordOffset(files.tableSlotCount()))
    }
  }

  /// Marks a record removed on disk (its sequence moves on, never back).
  private mutating func markRemoved(_ slot: Int) {
    let current = files.sequence(slot).pointee.load(ordering: .relaxed)
    let removed = Self.next(after: current, state: 2)
    files.sequence(slot).pointee.store(removed, ordering: .sequentiallyConsistent)
    slots[slot].sequence = removed
  }

  // MARK: Lookup

  /// The live slot of `entityID`, from the shared buckets and this memory.
  func find(_ entityID: String, hash: UInt64) -> Int? {
    let shared = files.shared
    var bucket = Int(truncatingIfNeeded: hash) & shared.bucketMask
    for _ in 0..<shared.bucketCount {
      let value = shared.buckets[bucket].load(ordering: .relaxed)
      if value == 0 { return nil }
      // Nothing is trusted from a bucket (the shared file can be damaged): a slot of -1
      // or past the table is no slot.
      let slot = Int(value & 0xFFFF_FFFF) - 1
      if value & 0xFFFF_FFFF_0000_0000 == SharedFile.tag(hash), slots.indices.contains(slot),
        slots[slot].phase == .live, slots[slot].idHash == hash,
        files.recordHolds(slot, entityID: entityID)
      {
        return slot
      }
      bucket = (bucket + 1) & shared.bucketMask
    }
    return nil
  }

  /// Live slots, least recently used first (hits in any process count as use).
  mutating func lruOrder() -> [Int] {
    refreshOrder()
    var order: [Int] = []
    var slot = oldest
    while slot >= 0 {
      order.append(Int(slot))
      slot = slots[Int(slot)].newer
    }
    return order
  }

  /// Moves every entry used since it took its place to where its last use puts it, oldest
  /// use first. A use is stamped with the clock as it is, and a commit moves the clock on,
  /// so an entry used before the newest commit stays older than the entry committed.
  private mutating func refreshOrder() {
    var used: [(stamp: UInt64, slot: Int)] = []
    var slot = oldest
    while slot >= 0 {
      let stamp = files.shared.stamps[Int(slot)].load(ordering: .relaxed)
      if stamp > slots[Int(slot)].listStamp { used.append((stamp, Int(slot))) }
      slot = slots[Int(slot)].newer
    }
    for (stamp, slot) in used.sorted(by: { $0.stamp < $1.stamp }) {
      unlinkLRU(slot)
      insertByStamp(slot, stamp: stamp)
    }
  }

  /// Links `slot` in after the newest entry whose stamp is not above `stamp` (from the
  /// newest end: a use is almost always of the newest few).
  private mutating func insertByStamp(_ slot: Int, stamp: UInt64) {
    var after = newest
    while after >= 0, slots[Int(after)].listStamp > stamp { after = slots[Int(after)].older }
    guard after >= 0 else {
      slots[slot].listStamp = stamp
      slots[slot].older = -1
      slots[slot].newer = oldest
      if oldest >= 0 { slots[Int(oldest)].older = Int32(slot) }
      oldest = Int32(slot)
      if newest < 0 { newest = Int32(slot) }
      return
    }
    guard after != newest else { return pushNewest(slot, stamp: stamp) }
    let before = slots[Int(after)].newer
    slots[slot].listStamp = stamp
    slots[slot].older = after
    slots[slot].newer = before
    slots[Int(after)].newer = Int32(slot)
    slots[Int(before)].older = Int32(slot)
  }

  // MARK: Removal

  /// Removes a live entry: its record is marked removed at once and its bucket taken
  /// out; its slot is free now if no reader pins it, or retired until none does.
  mutating func remove(_ slot: Int) {
    markRemoved(slot)
    files.shared.remove(slot: slot, hash: slots[slot].idHash, homeHashes: homeHashes)
    unlinkLRU(slot)
    liveCount -= 1
    let sequence = slots[slot].sequence
    if files.shared.isPinned(slot) {
      slots[slot] = Slot(phase: .retired, sequence: sequence)
      retired.append(Int32(slot))
    } else {
      slots[slot] = Slot(sequence: sequence)
      freeSlots.append(Int32(slot))
    }
  }

  // MARK: Writing

  /// Finds a slot for a new entry: a free one, a grown one, a retired one nobody pins
  /// any more, or the least recently used entry nobody pins. Marks its record as being
  /// written, so a crash while drawing leaves a miss.
  mutating func reserve(format: ImageFormat, replacing entity: (id: String, hash: UInt64)? = nil)
    throws(ImageTableError) -> Reservation
  {
    reclaimRetired()
    if freeSlots.isEmpty, slots.count < format.maximumCount {
      try grow(format: format)
    }
    var chosen = freeSlots.popLast().map(Int.init)
    // A full table that already holds the entity being written gives up that entry first:
    // the new one replaces it anyway, and evicting another would make a forced render of
    // a full table push out the entries it has not rewritten yet.
    if chosen == nil, let entity, let previous = find(entity.id, hash: entity.hash),
      !files.shared.isPinned(previous)
    {
      remove(previous)
      chosen = freeSlots.popLast().map(Int.init)
    }
    if chosen == nil {
      refreshOrder()
      var candidate = oldest
      while candidate >= 0, chosen == nil {
        let slot = Int(candidate)
        candidate = slots[slot].newer
        guard !files.shared.isPinned(slot) else { continue }
        remove(slot)
        chosen = freeSlots.popLast().map(Int.init)
      }
    }
    guard let slot = chosen else {
      throw .noFreeSlot(format: format.name, capacity: format.maximumCount)
    }
    let sequence = Self.next(after: slots[slot].sequence, state: 1)
    files.sequence(slot).pointee.store(sequence, ordering: .sequentiallyConsistent)
    slots[slot] = Slot(phase: .reserved, sequence: sequence)
    return Reservation(slot: slot, files: files, generation: generation, sequence: sequence)
  }

  /// Gives back a reserved slot whose drawing failed.
  mutating func abandon(_ reservation: Reservation) {
    guard reservation.generation == generation else { return }
    markRemoved(reservation.slot)
    slots[reservation.slot].phase = .free
    freeSlots.append(Int32(reservation.slot))
  }

  /// Publishes a drawn entry: the record is written and its checksum set, then its
  /// sequence made committed, then its bucket inserted; an entry the same id had is
  /// removed after. Returns false when a reset came in between (nothing published).
  mutating func commit(
    _ reservation: Reservation, entityID: String, sourceVersion: String, width: Int,
    height: Int, hash: UInt64, checksum: UInt64
  ) -> Bool {
    guard reservation.generation == generation else { return false }
    let slot = reservation.slot
    writeOrder += 1
    let committed = Self.next(after: reservation.sequence, state: 0)
    IndexRecord(
      sequence: committed, idHash: hash, entityID: entityID, sourceVersion: sourceVersion,
      width: width, height: height, pixelChecksum: checksum, writeOrder: writeOrder
    ).writeFields(slot: slot, to: files.index.base)
    files.sequence(slot).pointee.store(committed, ordering: .sequentiallyConsistent)
    files.markVerified(slot, sequence: committed)
    let previous = find(entityID, hash: hash)
    // An atomic add: readers move the clock on too (TableFiles.lookup).
    let clock = files.shared.clock.pointee.wrappingAdd(1, ordering: .relaxed).newValue
    files.shared.stamps[slot].store(clock, ordering: .relaxed)
    slots[slot] = Slot(phase: .live, idHash: hash, sequence: committed)
    homeHashes[slot] = hash
    files.shared.insert(slot: slot, hash: hash)
    if let previous { remove(previous) }
    pushNewest(slot, stamp: clock)
    liveCount += 1
    return true
  }

  /// Removes the entry in `slot` if it still holds `sequence` (a hit found it corrupt).
  mutating func removeCorrupt(_ slot: Int, sequence: UInt64) {
    guard slot < slots.count, slots[slot].phase == .live, slots[slot].sequence == sequence else {
      return
    }
    remove(slot)
  }

  private mutating func reclaimRetired() {
    retired.removeAll { slot in
      guard !files.shared.isPinned(Int(slot)) else { return false }
      slots[Int(slot)].phase = .free
      freeSlots.append(slot)
      return true
    }
  }

  /// Grows both files by a step of an eighth of the slots, at least 16 and at most up to
  /// maximumCount, so that the slots allocated stay within 12.5% (or 16 slots) of the
  /// entries held: a table grows only when every slot it has is taken.
  private mutating func grow(format: ImageFormat) throws(ImageTableError) {
    let count = min(format.maximumCount, slots.count + Self.growthStep(slots: slots.count))
    try files.index.grow(to: TableFileLayout.recordOffset(count))
    try files.table.grow(to: files.headerSize + count * files.layout.entryStride)
    freeSlots.insert(contentsOf: (slots.count..<count).reversed().map { Int32($0) }, at: 0)
    // A record the index held already (past a table cut short) keeps its sequence, which
    // only grows.
    slots.append(
      contentsOf: (slots.count..<count).map {
        Slot(sequence: files.sequence($0).pointee.load(ordering: .relaxed))
      })
    homeHashes.append(contentsOf: repeatElement(0, count: count - homeHashes.count))
  }

  /// The slots a table of `slots` grows by.
  static func growthStep(slots: Int) -> Int { max(16, slots / 8) }

  // MARK: Lists

  private mutating func pushNewest(_ slot: Int, stamp: UInt64) {
    slots[slot].listStamp = stamp
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

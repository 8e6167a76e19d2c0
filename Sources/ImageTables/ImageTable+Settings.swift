import Foundation

extension ImageTable {
  /// Moves the entries of `old`, files written for the same pixels with other settings
  /// (``FormatFingerprint/settingsFields``: `maximumCount`, `devices`, `protectionMode`),
  /// into new files made with `fingerprint`, and returns those.
  ///
  /// New files (new inodes), as a reset makes: a reader in another process that still
  /// views an entry of the old files keeps it, and moves to the new files at its next
  /// lookup. The entries keep their order of use; when the new `maximumCount` is
  /// smaller than the entries held, the least recently used are left behind (evicted).
  /// Each entry is copied with its record and its pixel checksum, so an entry that was
  /// damaged is still found so at its first serve. A crash while copying leaves the
  /// entries copied so far (each whole: its record is committed after its pixels).
  static func carryOver(
    from old: TableFiles, format: ImageFormat, fingerprint: FormatFingerprint,
    stored: FormatFingerprint, headerSize: Int, paths: Paths, events: inout [ImageTableEvent]
  ) throws(ImageTableError) -> TableFiles {
    let layout = format.layout
    let tableLength = fileLength(old.table)
    // The newest record of each id, with when it was last used (a hit in any process
    // stamps the use clock; a commit too), least recently used first.
    var newest: [String: (slot: Int, record: IndexRecord, stamp: UInt64)] = [:]
    for slot in 0..<old.slotCount() {
      guard let record = IndexRecord.read(slot: slot, from: old.index.base).0,
        (1...layout.width).contains(record.width), (1...layout.height).contains(record.height),
        old.headerSize + (slot + 1) * layout.entryStride <= tableLength
      else { continue }
      if let found = newest[record.entityID], found.record.writeOrder > record.writeOrder {
        continue
      }
      newest[record.entityID] = (slot, record, old.shared.stamps[slot].load(ordering: .relaxed))
    }
    // Equal stamps: a commit moves the clock on and stamps its entry, a hit stamps
    // the clock as it is; so of entries stamped alike since the open (stamp > 0) the
    // one written last got it from its commit and the others from hits after it. The
    // stamps start at 0 at each open: those entries go by their write order.
    let byUse = newest.values.sorted { left, right in
      guard left.stamp == right.stamp else { return left.stamp < right.stamp }
      return left.stamp == 0
        ? left.record.writeOrder < right.record.writeOrder
        : left.record.writeOrder > right.record.writeOrder
    }
    let kept = byUse.suffix(format.maximumCount)
    let files = try createFiles(
      format: format, fingerprint: fingerprint, headerSize: headerSize, paths: paths,
      events: &events)
    try files.index.grow(to: TableFileLayout.recordOffset(kept.count))
    try files.table.grow(to: files.headerSize + kept.count * layout.entryStride)
    for (slot, entry) in kept.enumerated() {
      (files.pixels(slot)).copyMemory(
        from: old.pixels(entry.slot), byteCount: layout.bytesPerRow * entry.record.height)
      var record = entry.record
      // The first committed sequence of a new slot; the write order keeps the use order.
      record.sequence = TableState.next(after: 0, state: 0)
      record.writeOrder = UInt64(slot + 1)
      record.writeFields(slot: slot, to: files.index.base)
      files.sequence(slot).pointee.store(record.sequence, ordering: .sequentiallyConsistent)
    }
    let changes = fingerprint.fields.compactMap { field, value -> ImageTableEvent.FieldChange? in
      guard FormatFingerprint.settingsFields.contains(field), stored[field] != value else {
        return nil
      }
      return .init(field: field, old: stored[field] ?? "", new: value)
    }
    events.append(
      .settingsChanged(
        format: format.name, changes: changes, kept: kept.count, evicted: byUse.count - kept.count))
    return files
  }
}

extension TableFiles {
  /// A committed record as the lookup buckets must find it.
  struct CommittedEntry {
    var slot: Int
    var idHash: UInt64
    var entityID: String
  }

  /// What is wrong with the lookup buckets of the shared file against the committed
  /// records `entries`, or nothing; each problem names the slot it concerns, and the
  /// entity only when a hit cannot find that entity.
  ///
  /// A hit finds an entry by its id hash: from the hash's home bucket onwards, up to the
  /// first empty bucket, a bucket holding the hash's tag and the slot. The writer keeps,
  /// under its lock, exactly one such bucket per committed record and no other bucket.
  /// So, first, the buckets that lead a hit to an entry are found (a committed slot of
  /// the bucket's tag, reached from its home without an empty bucket between, the first
  /// such for its slot); then every other bucket is a stray (it names a slot of another
  /// id, a slot holding no entry, a slot outside the table, or repeats one), which costs
  /// probes but loses nothing; and every committed record that no bucket leads to is
  /// lost to hits. Buckets naming a slot that held a record of another kind (a write
  /// never finished, a record failing its checksum; `heldSomething`, by default whether
  /// its record is not vacant now) or a slot past the files' ends are left to the checks
  /// that name those. The next writer's open makes the buckets again from the records.
  ///
  /// Only meaningful while no writer changes the buckets (a reader checks with no writer
  /// running). Two passes over the buckets, one over the records.
  func bucketProblems(
    _ entries: [CommittedEntry], heldSomething: ((Int) -> Bool)? = nil
  ) -> [VerificationReport.Problem] {
    let heldSomething =
      heldSomething ?? {
        !TableFileLayout.isVacant(self.sequence($0).pointee.load(ordering: .acquiring))
      }
    // Per slot: the committed record's index in `entries`, or -1.
    var entryAt = [Int](repeating: -1, count: capacity)
    for (number, entry) in entries.enumerated() where entry.slot < capacity {
      entryAt[entry.slot] = number
    }
    func slot(of value: UInt64) -> Int { Int(value & 0xFFFF_FFFF) - 1 }
    // First pass: the buckets that lead to their entries.
    var leadsTo = [Bool](repeating: false, count: capacity)
    var leading = [Bool](repeating: false, count: shared.bucketCount)
    for bucket in 0..<shared.bucketCount {
      let value = shared.buckets[bucket].load(ordering: .acquiring)
      let named = slot(of: value)
      guard value != 0, (0..<capacity).contains(named), entryAt[named] >= 0,
        !leadsTo[named]
      else { continue }
      let entry = entries[entryAt[named]]
      if SharedFile.tag(entry.idHash) == SharedFile.tag(value),
        reaches(bucket, from: Int(truncatingIfNeeded: entry.idHash) & shared.bucketMask)
      {
        leadsTo[named] = true
        leading[bucket] = true
      }
    }
    // Second pass: every other bucket is a stray.
    let insideFiles = min(indexSlotCount(), tableSlotCount())
    var problems: [VerificationReport.Problem] = []
    for bucket in 0..<shared.bucketCount where !leading[bucket] {
      let value = shared.buckets[bucket].load(ordering: .acquiring)
      if value == 0 { continue }
      let named = slot(of: value)
      let finding: String
      if !(0..<capacity).contains(named) {
        finding = "lookup bucket \(bucket) names slot \(named), outside the table's \(capacity)"
      } else if entryAt[named] >= 0 {
        let entry = entries[entryAt[named]]
        if SharedFile.tag(entry.idHash) != SharedFile.tag(value) {
          finding = "lookup bucket \(bucket) names it with another id's hash"
        } else if leadsTo[named] {
          finding = "lookup bucket \(bucket) names it a second time"
        } else {
          finding = "lookup bucket \(bucket) names it past an empty bucket, where no hit looks"
        }
      } else if named >= insideFiles || heldSomething(named) {
        continue
      } else {
        finding = "lookup bucket \(bucket) names it, but it holds no entry"
      }
      problems.append(.init(slot: named, entityID: nil, reason: finding))
    }
    for entry in entries where entry.slot < capacity && !leadsTo[entry.slot] {
      problems.append(
        .init(
          slot: entry.slot, entityID: entry.entityID,
          reason: "no lookup bucket leads to it, so a hit cannot find it"))
    }
    return problems
  }

  /// Whether a probe from bucket `home` gets to `bucket` before an empty bucket.
  private func reaches(_ bucket: Int, from home: Int) -> Bool {
    var probe = home
    while probe != bucket {
      if shared.buckets[probe].load(ordering: .acquiring) == 0 { return false }
      probe = (probe + 1) & shared.bucketMask
    }
    return true
  }
}

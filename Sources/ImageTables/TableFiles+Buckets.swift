extension TableFiles {
  /// A committed record as the lookup buckets must find it.
  struct CommittedEntry {
    var slot: Int
    var idHash: UInt64
    var entityID: String
  }

  /// A wrong bucket: the slot it concerns, its entry's id when it has one, and what is
  /// wrong, in words.
  struct BucketProblem {
    var slot: Int
    var entityID: String?
    var finding: String

    /// The problem as `verify` names it, with what to do.
    func reported(sharedPath: String) -> VerificationReport.Problem {
      .init(
        slot: slot, entityID: entityID,
        reason: "\(finding): the lookup buckets of \(sharedPath) are damaged; the next render "
          + "makes them again")
    }
  }

  /// What is wrong with the lookup buckets of the shared file against the committed
  /// records `entries`, or nothing. A hit finds an entry by its id hash: from the hash's
  /// home bucket onwards, up to the first empty bucket, a bucket holding the hash's tag
  /// and the slot. So each bucket must name a slot holding a committed record of its tag,
  /// no slot may be named twice, no empty bucket may lie between a bucket and its home,
  /// and every committed record must be named (a bucket naming a record that is itself
  /// damaged, or a slot past the files' ends, is left to the checks that name those).
  /// A bucket that breaks this was damaged (the writer keeps it so under its lock): a hit
  /// may miss an entry the table holds, or probe past one. The next writer's open finds
  /// the damage and makes the buckets again from the records.
  ///
  /// Only meaningful while no writer changes the buckets (a reader checks with no writer
  /// running). One pass over the buckets, one over the records.
  ///
  /// `heldSomething(slot)` says whether a slot without a committed record held a record
  /// all the same (a write never finished, a record failing its checksum), which the
  /// record checks name; by default, whether its record is not vacant now.
  func bucketProblems(
    _ entries: [CommittedEntry], heldSomething: ((Int) -> Bool)? = nil
  ) -> [BucketProblem] {
    let heldSomething =
      heldSomething ?? {
        !TableFileLayout.isVacant(self.sequence($0).pointee.load(ordering: .acquiring))
      }
    // Per slot: the committed record's index in `entries`, or -1.
    var entryAt = [Int](repeating: -1, count: capacity)
    for (number, entry) in entries.enumerated() where entry.slot < capacity {
      entryAt[entry.slot] = number
    }
    var named = [Bool](repeating: false, count: capacity)
    var problems: [BucketProblem] = []
    // Slots past either file's end: a hit never reads them, and what a file cut short
    // lost is named by the length checks.
    let insideFiles = min(indexSlotCount(), tableSlotCount())
    for bucket in 0..<shared.bucketCount {
      let value = shared.buckets[bucket].load(ordering: .acquiring)
      if value == 0 { continue }
      let slot = Int(value & 0xFFFF_FFFF) - 1
      guard (0..<capacity).contains(slot) else {
        problems.append(
          .init(
            slot: slot, entityID: nil,
            finding: "lookup bucket \(bucket) names slot \(slot), outside the table's "
              + "\(capacity) slots"))
        continue
      }
      let number = entryAt[slot]
      let entry = number >= 0 ? entries[number] : nil
      let reason: String?
      if let entry, SharedFile.tag(entry.idHash) == SharedFile.tag(value) {
        if named[slot] {
          reason = "a second lookup bucket (\(bucket)) names it"
        } else if !reaches(bucket, from: Int(truncatingIfNeeded: entry.idHash) & shared.bucketMask)
        {
          reason =
            "its lookup bucket (\(bucket)) lies past an empty bucket, so a hit cannot find it"
        } else {
          reason = nil
        }
        named[slot] = true
      } else if entry != nil {
        reason = "lookup bucket \(bucket) names it with another id's hash"
      } else if slot >= insideFiles || heldSomething(slot) {
        // Past the files, or a record that is not vacant (a write never finished, a
        // record failing its checksum): named by the checks of records and lengths.
        reason = nil
      } else {
        reason = "lookup bucket \(bucket) names it, but it holds no entry"
      }
      if let reason {
        problems.append(.init(slot: slot, entityID: entry?.entityID, finding: reason))
      }
    }
    for entry in entries where entry.slot < capacity && !named[entry.slot] {
      problems.append(
        .init(
          slot: entry.slot, entityID: entry.entityID,
          finding: "no lookup bucket names it, so a hit cannot find it"))
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

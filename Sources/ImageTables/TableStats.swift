/// The size and fill of one table.
public struct TableStats: Sendable, Equatable {
  public var format: String
  /// Entries served now.
  public var entries: Int
  /// The most entries the table keeps (the format's maximumCount).
  public var capacity: Int
  /// Slots the files hold now; they grow in steps up to `capacity`.
  public var allocatedEntries: Int
  /// Bytes from one entry to the next in the table file (rows padded, entry aligned).
  public var bytesPerEntry: Int
  /// Bytes the pixels of one full-size entry take unpadded: width x height x bytes per pixel.
  public var rawBytesPerEntry: Int
  /// Bytes of the table and index files together.
  public var fileBytes: Int

  /// Files' bytes over the raw pixel bytes of the entries held, minus one:
  /// 0.25 means a quarter more than the pixels themselves. Infinite when empty.
  public var overhead: Double {
    entries == 0
      ? .infinity : Double(fileBytes) / Double(entries * rawBytesPerEntry) - 1
  }
}

/// One entry, as `imgtool inspect` lists it.
public struct TableEntry: Sendable, Equatable {
  public var slot: Int
  public var entityID: String
  public var sourceVersion: String
  public var width: Int
  public var height: Int
}

/// What ``ImageTable/verify()`` found.
public struct VerificationReport: Sendable, Equatable {
  public struct Problem: Sendable, Equatable {
    public var slot: Int
    public var entityID: String?
    public var reason: String
  }
  /// Entries whose records and pixels were checked.
  public var checked: Int
  /// Entries that failed, now misses; and lookup buckets that do not lead to exactly the
  /// entries held (an entity named: hits cannot find it; none: a stray bucket, which
  /// loses nothing), which the next writer's open makes again.
  public var corrupt: [Problem]
}

extension VerificationReport.Problem: CustomStringConvertible {
  /// The slot, the entity when there is one, and the reason: `slot 4 ('rocket.jpg'): ...`.
  public var description: String {
    "slot \(slot)\(entityID.map { " ('\($0)')" } ?? ""): \(reason)"
  }
}

/// Something a table noticed and dealt with, reported through
/// ``ImageTable/Options/report`` so that nothing is dropped silently.
public enum ImageTableEvent: Sendable, Equatable, CustomStringConvertible {
  /// A field that decides pixels changed since the table was written (the size, the
  /// style, the pipeline, a processor's name, version or arguments): the table was
  /// recreated empty, and its entries are rendered again.
  case invalidated(format: String, changedFields: [String])
  /// Only fields that do not change an entry's bytes changed (``FormatFingerprint/settingsFields``:
  /// `maximumCount`, `devices`, `protectionMode`): the entries were kept, `kept` of
  /// them; a smaller `maximumCount` evicted the `evicted` least recently used.
  case settingsChanged(format: String, changes: [FieldChange], kept: Int, evicted: Int)
  /// The table file's header could not be read: the table was recreated empty.
  case unreadableTable(format: String, reason: String)
  /// The index was missing or did not belong to the table: every entry is a miss.
  case indexRebuilt(format: String, reason: String)
  /// An entry failed verification (torn write, flipped bytes, truncated file) and is a miss.
  case corruptEntry(format: String, slot: Int, entityID: String?, reason: String)
  /// The shared file's lookup buckets do not lead to exactly the committed records
  /// (damaged, or left so by a writer killed between a commit and its bucket): each
  /// problem names a slot, and an entity when hits cannot find that entity (the others
  /// are stray buckets, which cost probes and lose nothing). A reader's list or
  /// `verify()` found them (`rebuilt` false: the next writer's open makes the buckets
  /// again), or a writer's open found them and made the buckets again from the index
  /// (`rebuilt` true: no entry was lost).
  case lookupBucketsDamaged(format: String, problems: [VerificationReport.Problem], rebuilt: Bool)

  public var description: String {
    switch self {
    case .invalidated(let format, let fields):
      "table '\(format)' was invalidated (changed: \(fields.joined(separator: ", "))); "
        + "recreated empty: its entries are rendered again"
    case .settingsChanged(let format, let changes, let kept, let evicted):
      "table '\(format)': \(changes.map(\.description).joined(separator: ", ")); "
        + "kept \(kept) \(kept == 1 ? "entry" : "entries")"
        + (evicted > 0
          ? ", evicted the \(evicted) least recently used to fit maximumCount"
          : "")
    case .unreadableTable(let format, let reason):
      "table '\(format)' could not be read (\(reason)); recreated empty"
    case .indexRebuilt(let format, let reason):
      "table '\(format)': index \(reason); its entries are misses"
    case .lookupBucketsDamaged(let format, let problems, let rebuilt):
      "table '\(format)': its lookup buckets "
        + (rebuilt ? "did not match its index (" : "do not match its index (")
        + problems.map(\.description).joined(separator: "; ")
        + (rebuilt
          ? "); made again from the index, no entry lost"
          : "); the next render makes them again")
    case .corruptEntry(let format, let slot, let entityID, let reason):
      "table '\(format)': entry \(slot)\(entityID.map { " ('\($0)')" } ?? "") is corrupt "
        + "(\(reason)); served as a miss"
    }
  }
}

extension ImageTableEvent {
  /// One field of a format's fingerprint that changed: its name, the value the table
  /// was written with and the value now.
  public struct FieldChange: Sendable, Equatable, CustomStringConvertible {
    public let field: String
    public let old: String
    public let new: String

    public init(field: String, old: String, new: String) {
      self.field = field
      self.old = old
      self.new = new
    }

    /// `maximumCount 100 -> 200`.
    public var description: String { "\(field) \(old) -> \(new)" }
  }
}

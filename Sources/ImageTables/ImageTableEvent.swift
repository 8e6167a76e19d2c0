/// Something a table noticed and dealt with, reported through
/// ``ImageTable/Options/report`` so that nothing is dropped silently.
public enum ImageTableEvent: Sendable, Equatable, CustomStringConvertible {
  /// The format changed since the table was written: the table was recreated empty.
  case invalidated(format: String, changedFields: [String])
  /// The table file's header could not be read: the table was recreated empty.
  case unreadableTable(format: String, reason: String)
  /// The index was missing or did not belong to the table: every entry is a miss.
  case indexRebuilt(format: String, reason: String)
  /// An entry failed verification (torn write, flipped bytes, truncated file) and is a miss.
  case corruptEntry(format: String, slot: Int, entityID: String?, reason: String)

  public var description: String {
    switch self {
    case .invalidated(let format, let fields):
      "table '\(format)' was invalidated (changed: \(fields.joined(separator: ", "))); "
        + "recreated empty"
    case .unreadableTable(let format, let reason):
      "table '\(format)' could not be read (\(reason)); recreated empty"
    case .indexRebuilt(let format, let reason):
      "table '\(format)': index \(reason); its entries are misses"
    case .corruptEntry(let format, let slot, let entityID, let reason):
      "table '\(format)': entry \(slot)\(entityID.map { " ('\($0)')" } ?? "") is corrupt "
        + "(\(reason)); served as a miss"
    }
  }
}

import ImageTables

/// Why `imgtool merge` wrote nothing. Every case names the cache, the format or the
/// entity concerned, and the output is as it was.
public enum MergeError: Error, Sendable, Equatable, CustomStringConvertible {
  /// An input is not a folder of tables.
  case notACache(path: String, reason: String)
  /// A table cannot be opened or read.
  case unreadableTable(path: String, error: ImageTableError)
  /// A format's table is in one cache and not in another.
  case formatMissing(format: String, missingFrom: String, presentIn: String)
  /// A format's table was made for another fingerprint than the same format's elsewhere.
  case formatDiffers(format: String, path: String, reference: String, fields: [String])
  /// The same entity at two different source versions in two inputs.
  case versionConflict(
    entityID: String, format: String, first: (path: String, version: String),
    second: (path: String, version: String))
  /// More entities than the format keeps.
  case tooManyEntries(format: String, count: Int, maximumCount: Int)
  /// An entry whose pixels or record do not verify.
  case corruptEntry(format: String, path: String, entityID: String?, reason: String)
  /// A table whose lookup buckets do not lead to exactly its entries (`problems`, as
  /// the table named them): a hit could miss an entry it holds.
  case lookupBucketsDamaged(format: String, path: String, problems: String)
  /// Another process is writing to the output's table.
  case outputBusy(path: String)
  /// A file system call failed.
  case io(path: String, operation: String, message: String)

  public static func == (left: MergeError, right: MergeError) -> Bool {
    left.description == right.description
  }

  public var description: String {
    switch self {
    case .notACache(let path, let reason):
      "\(path): not a cache folder: \(reason)"
    case .unreadableTable(let path, let error):
      "\(path): cannot be read: \(error)"
    case .formatMissing(let format, let missingFrom, let presentIn):
      "format '\(format)' has a table in \(presentIn) but none in \(missingFrom); "
        + "merge caches rendered with the same manifest"
    case .formatDiffers(let format, let path, let reference, let fields):
      "format '\(format)' in \(path) differs from the one in \(reference) in "
        + "\(fields.joined(separator: ", ")); merge only caches rendered with the same "
        + "manifest and processors (render again, or merge into a new folder)"
    case .versionConflict(let entityID, let format, let first, let second):
      "entity '\(entityID)' (format '\(format)') is at version \(first.version) in "
        + "\(first.path) and at version \(second.version) in \(second.path); render its "
        + "shard again from the current photo"
    case .tooManyEntries(let format, let count, let maximumCount):
      "format '\(format)': the merge holds \(count) entities but the format keeps at most "
        + "\(maximumCount) (maximumCount); \(count - maximumCount) would be dropped, so nothing "
        + "was merged: raise maximumCount in the manifest and render again"
    case .corruptEntry(let format, let path, let entityID, let reason):
      "\(path): format '\(format)', entity '\(entityID ?? "unknown")' does not verify (\(reason)); render "
        + "that shard again with --force"
    case .lookupBucketsDamaged(let format, let path, let problems):
      "\(path): format '\(format)': its lookup buckets do not match its index (\(problems)); "
        + "one `imgtool render` into that cache (no --force needed) makes them again"
    case .outputBusy(let path):
      "\(path): another process is writing this table; wait for it to finish (--wait)"
    case .io(let path, let operation, let message):
      "\(path): \(operation) failed: \(message)"
    }
  }
}

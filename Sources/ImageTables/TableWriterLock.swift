import Foundation

/// A table's writer lock, held without opening the table: for a tool that replaces a
/// table's files as a whole (`imgtool merge`) and must keep every writer out meanwhile.
/// While it lives, opening the table for writing fails (or waits, with
/// `waitForWriter`), in this process and in every other; readers are not held up.
///
/// <!-- snippet context: let cacheURL = URL(fileURLWithPath: ".imgtool-cache") -->
/// ```swift
/// let lock = try TableWriterLock(formatName: "avatar.small", directory: cacheURL)
/// // ... build the new files beside, move them in ...
/// _ = lock  // released when the last reference goes, or when the process ends
/// ```
public final class TableWriterLock: Sendable {
  /// The lock file, `<name>.lock` beside the table.
  public let path: String
  private let lock: WriterLock

  /// Takes the writer lock of the table of `formatName` in `directory` (which must
  /// exist); creates the lock file if there is none. Throws
  /// ``ImageTableError/lockedByAnotherWriter(path:)`` when another writer holds it,
  /// unless `wait`.
  public init(formatName: String, directory: URL, wait: Bool = false) throws(ImageTableError) {
    path = ImageTable.paths(formatName: formatName, directory: directory).lock
    lock = try WriterLock(path: path, wait: wait)
  }
}

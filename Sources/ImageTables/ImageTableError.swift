/// Why a table could not be opened, read or written.
public enum ImageTableError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A system call on a table file failed.
  case io(path: String, operation: String, message: String)
  /// Another writer (another process, or another `ImageTable` in this one) has the table open.
  case lockedByAnotherWriter(path: String)
  /// This process is the writer already: another `ImageCache` or `ImageTable` in it has the
  /// table open for writing and has not been closed.
  case lockedInThisProcess(path: String, pid: Int32)
  /// The table was closed (``ImageTable/close()``): it writes nothing more.
  case closed(format: String)
  /// The format's protection mode does not allow access while the cache is locked.
  case protectedDataUnavailable(format: String, mode: ProtectionMode)
  /// The entity id and source version are longer than a record holds.
  case keyTooLong(entityID: String, bytes: Int, limit: Int)
  /// Every entry is in use by a live ``Bitmap`` or being written; nothing can make room.
  case noFreeSlot(format: String, capacity: Int)
  /// The drawn size does not fit the format's slot.
  case entryTooLarge(format: String, width: Int, height: Int, slotWidth: Int, slotHeight: Int)
  /// The table was opened read-only.
  case readOnly(format: String)
  /// The file is not an ImageTool table (or not one this version reads).
  case notATable(path: String, reason: String)
  /// A table opened read-only was written for another format: fields that decide its
  /// pixels differ. Nothing was recreated (a reader never writes); a writer's open
  /// (a render) re-renders the table.
  case formatChanged(path: String, format: String, changedFields: [String])
  /// A table, index, shared or lock file is a symbolic link: refused, never followed.
  case symbolicLink(path: String)
  /// A file could not grow: the disk is full, or a file-size limit was reached.
  case cannotGrow(path: String, bytes: Int, reason: String)
  /// A reader found every one of the shared file's `limit` reader records held by a live
  /// process (each open table instance holds one). The writer never needs one.
  case readerLimit(path: String, limit: Int)
  /// ``ImageTable/Options/maxReaders`` is outside 1...65,536.
  case invalidMaxReaders(Int)

  public var description: String {
    switch self {
    case .io(let path, let operation, let message):
      "\(path): \(operation) failed: \(message)"
    case .lockedByAnotherWriter(let path):
      "\(path): another writer has this table open; wait for it to finish (waitForWriter), "
        + "or open the table read-only"
    case .lockedInThisProcess(let path, let pid):
      "\(path): this process (pid \(pid)) has this table open for writing already, in another "
        + "ImageCache or ImageTable; close() that one first (waitForWriter waits for its close())"
    case .closed(let format):
      "format '\(format)': the table was closed; open it again to write"
    case .protectedDataUnavailable(let format, let mode):
      "format '\(format)' is protected (\(mode.rawValue)) and the cache is locked"
    case .keyTooLong(let entityID, let bytes, let limit):
      "entity id '\(entityID.prefix(80))...' with its source version is \(bytes) bytes; "
        + "the limit is \(limit)"
    case .noFreeSlot(let format, let capacity):
      "format '\(format)': all \(capacity) entries are in use by live bitmaps or writes; "
        + "release bitmaps or raise maximumCount"
    case .entryTooLarge(let format, let width, let height, let slotWidth, let slotHeight):
      "format '\(format)': \(width)x\(height) does not fit the \(slotWidth)x\(slotHeight) slot"
    case .readOnly(let format):
      "format '\(format)': the table is open read-only"
    case .notATable(let path, let reason):
      "\(path): not an ImageTool table: \(reason)"
    case .formatChanged(let path, let format, let fields):
      "\(path): table '\(format)' was written for another format (changed: "
        + "\(fields.joined(separator: ", "))); it is open read-only, so nothing was recreated: "
        + "open it for writing (a render) to re-render it"
    case .symbolicLink(let path):
      "\(path): is a symbolic link; table files are never followed through links. "
        + "Remove the link (and check who planted it)"
    case .cannotGrow(let path, let bytes, let reason):
      "\(path): cannot grow to \(bytes) bytes: \(reason); free disk space or raise the "
        + "file-size limit (the table stays usable at its present size)"
    case .readerLimit(let path, let limit):
      "\(path): all \(limit) reader records are held by live processes (one per open table "
        + "instance); close some readers, or raise maxReaders (the manifest's \"maxReaders\", "
        + "ImageTable.Options.maxReaders): a writer that opens the table with more, while no "
        + "reader has it open, makes its shared file anew with that many"
    case .invalidMaxReaders(let value):
      "maxReaders \(value) is outside 1...65536"
    }
  }
}

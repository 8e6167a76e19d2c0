import Foundation

/// The lock that makes one process at a time a table's writer: `flock` on a lock file
/// beside the table, released by ``release()``, or by the kernel when the process ends,
/// however it ends.
///
/// `flock` belongs to an open file, so a second opener in the same process is refused
/// (or waits) as another process is. The lock files this process holds are kept in
/// ``heldHere``, so that the error says when the holder is this very process.
final class WriterLock: Sendable {
  /// The lock file's identity (device and inode), which every spelling of its path shares.
  private struct FileID: Hashable {
    var device: UInt64
    var inode: UInt64
  }

  /// The lock files held by this process's writer locks.
  private static let heldHere = TableLock<Set<FileID>>([])

  private let path: String
  private let file: FileID
  /// The descriptor until ``release()``.
  private let descriptor: TableLock<Int32?>

  init(path: String, wait: Bool) throws(ImageTableError) {
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
    guard descriptor >= 0 else {
      if errno == ELOOP { throw .symbolicLink(path: path) }
      throw MappedFile.error(path, "open")
    }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      let failure = MappedFile.error(path, "fstat")
      close(descriptor)
      throw failure
    }
    let file = FileID(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    while flock(descriptor, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0 {
      if errno == EINTR { continue }
      let busy = errno == EWOULDBLOCK
      let failure = MappedFile.error(path, "flock")
      close(descriptor)
      guard busy else { throw failure }
      if Self.heldHere.withLock({ $0.contains(file) }) {
        throw .lockedInThisProcess(path: path, pid: getpid())
      }
      throw .lockedByAnotherWriter(path: path)
    }
    Self.heldHere.withLock { _ = $0.insert(file) }
    self.path = path
    self.file = file
    self.descriptor = TableLock(descriptor)
  }

  /// Lets the lock go (at once for a waiter in this process or another); a second call
  /// does nothing.
  func release() {
    descriptor.withLock { descriptor in
      guard let open = descriptor else { return }
      Self.heldHere.withLock { _ = $0.remove(file) }
      flock(open, LOCK_UN)
      close(open)
      descriptor = nil
    }
  }

  deinit { release() }
}

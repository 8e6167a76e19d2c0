import Foundation

/// The lock that makes one process at a time a table's writer: `flock` on a lock file
/// beside the table, released by the kernel when the process ends, however it ends.
final class WriterLock: Sendable {
  let descriptor: Int32

  init(path: String, wait: Bool) throws(ImageTableError) {
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
    guard descriptor >= 0 else {
      if errno == ELOOP { throw .symbolicLink(path: path) }
      throw MappedFile.error(path, "open")
    }
    while flock(descriptor, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0 {
      if errno == EINTR { continue }
      let busy = errno == EWOULDBLOCK
      let failure = MappedFile.error(path, "flock")
      close(descriptor)
      throw busy ? .lockedByAnotherWriter(path: path) : failure
    }
    self.descriptor = descriptor
  }

  deinit {
    flock(descriptor, LOCK_UN)
    close(descriptor)
  }
}

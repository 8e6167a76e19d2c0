import CMappingGuard
import Foundation

/// A file mapped into memory, with address space reserved up front for its largest
/// size, so that it grows in place (the mapping never moves) and views into it stay
/// valid. The mapping lives until the last reference to this object goes, so bytes a
/// ``Bitmap`` views survive a reset that replaces the file.
final class MappedFile: @unchecked Sendable {
  // Safety of @unchecked Sendable: `length` changes only under the owning table's lock.
  let path: String
  let descriptor: Int32
  let base: UnsafeMutableRawPointer
  let reservedLength: Int
  let writable: Bool
  /// Mapped copy-on-write because the file could only be read: writes stay private.
  let isPrivateCopy: Bool
  private(set) var length: Int
  /// The mapping's registration with the SIGBUS guard (`CMappingGuard`): a page past
  /// the file's end (cut short by another process while mapped) reads as zeros instead
  /// of ending the process.
  private let guardNumber: Int32

  /// Opens the file at `path`, or creates a new one when `create` (never reusing an
  /// existing file: `O_EXCL`), reserving `reservedLength` bytes of address space. A
  /// symbolic link in the file's place is refused (`O_NOFOLLOW`), so a link planted in
  /// the cache folder cannot redirect a write.
  ///
  /// With `privateCopyWhenDenied`, a file this process may only read (another user's, or
  /// on a read-only mount) is mapped copy-on-write instead: this process's writes stay in
  /// its own memory and never reach the file (``isPrivateCopy``).
  init(
    path: String, create: Bool, writable: Bool, permissions: UInt16, reservedLength: Int,
    privateCopyWhenDenied: Bool = false
  ) throws(ImageTableError) {
    let flags =
      (writable ? O_RDWR : O_RDONLY) | (create ? O_CREAT | O_EXCL : 0) | O_CLOEXEC | O_NOFOLLOW
    var descriptor = open(path, flags, mode_t(permissions))
    var isPrivateCopy = false
    if descriptor < 0, privateCopyWhenDenied, writable, !create,
      errno == EACCES || errno == EROFS || errno == EPERM
    {
      descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
      isPrivateCopy = descriptor >= 0
    }
    guard descriptor >= 0 else {
      if errno == ELOOP || (errno == EEXIST && Self.isSymbolicLink(path)) {
        throw .symbolicLink(path: path)
      }
      throw Self.error(path, create ? "create" : "open")
    }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      close(descriptor)
      throw Self.error(path, "stat")
    }
    let length = Int(status.st_size)
    let reserve = max(reservedLength, length, 4096)
    let protection = writable ? (PROT_READ | PROT_WRITE) : PROT_READ
    let address = mmap(
      nil, reserve, protection, isPrivateCopy ? MAP_PRIVATE : MAP_SHARED, descriptor, 0)
    guard let address, address != MAP_FAILED else {
      close(descriptor)
      throw Self.error(path, "mmap")
    }
    self.path = path
    self.descriptor = descriptor
    self.base = address
    self.reservedLength = reserve
    self.writable = writable
    self.isPrivateCopy = isPrivateCopy
    self.length = length
    guardNumber = mapping_guard_add(address, reserve)
  }

  deinit {
    mapping_guard_remove(guardNumber)
    munmap(base, reservedLength)
    close(descriptor)
  }

  /// Whether a page of the mapping faulted past the file's end and reads as zeros now:
  /// the file was cut short while mapped.
  var wasCutShortWhileMapped: Bool { mapping_guard_faults(guardNumber) > 0 }

  /// The file's length on disk now (another process may have cut it short or grown it).
  var currentLength: Int {
    var status = stat()
    return fstat(descriptor, &status) == 0 ? Int(status.st_size) : length
  }

  /// Grows the file to `newLength` bytes (never shrinks); new bytes read as zero.
  ///
  /// The new blocks are reserved on disk (`posix_fallocate`), so a full disk or a
  /// file-size limit is this error, naming the file, and never a SIGBUS at the first
  /// write into a new page. On failure the file keeps its old length.
  func grow(to newLength: Int) throws(ImageTableError) {
    guard newLength > length else { return }
    precondition(newLength <= reservedLength, "a table file grew past its reservation")
    Self.ignoreFileSizeSignal
    let result = posix_fallocate(descriptor, off_t(length), off_t(newLength - length))
    guard result == 0 else {
      _ = ftruncate(descriptor, off_t(length))
      throw .cannotGrow(path: path, bytes: newLength, reason: String(cString: strerror(result)))
    }
    length = newLength
  }

  /// Writes `bytes` into the file at `offset` with `pwrite`, inside its length: the
  /// mapping sees them at once (one page cache), and no page of this process's mapping
  /// is touched, so none faults and none is zeroed first.
  ///
  /// The bound checked is the reservation, not `length`: another writer may be growing
  /// the file under the table's lock meanwhile, and this write's slot was inside the
  /// length when it was reserved (ThreadSanitizer saw the unlocked read of `length`).
  func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(ImageTableError) {
    precondition(
      offset >= 0 && offset + bytes.count <= reservedLength, "a write past a table file's end")
    guard let base = bytes.baseAddress else { return }
    var done = 0
    while done < bytes.count {
      let count = pwrite(descriptor, base + done, bytes.count - done, off_t(offset + done))
      if count < 0, errno == EINTR { continue }
      guard count > 0 else {
        if count == 0 { errno = EIO }  // no progress and no reason given
        throw Self.error(path, "write")
      }
      done += count
    }
  }

  /// Reserves blocks on disk for `count` bytes at `offset` (a sparse region), growing the
  /// file over them when they lie past its end; ``length`` stays as it was (for the
  /// shared file, which claims in other processes grow too).
  func reserve(offset: Int, length count: Int) throws(ImageTableError) {
    // A private copy's writes land in this process's memory, never in the file.
    guard !isPrivateCopy else { return }
    Self.ignoreFileSizeSignal
    let result = posix_fallocate(descriptor, off_t(offset), off_t(count))
    guard result == 0 else {
      throw .cannotGrow(
        path: path, bytes: offset + count, reason: String(cString: strerror(result)))
    }
  }

  /// Sets the file's length without reserving blocks: for regions reserved later.
  func extendSparse(to newLength: Int) throws(ImageTableError) {
    guard newLength > length else { return }
    guard ftruncate(descriptor, off_t(newLength)) == 0 else {
      throw .cannotGrow(path: path, bytes: newLength, reason: String(cString: strerror(errno)))
    }
    length = newLength
  }

  /// A file-size limit (RLIMIT_FSIZE) sends SIGXFSZ, which by default ends the process;
  /// ignored (when nobody handles it), the growth fails with EFBIG instead.
  private static let ignoreFileSizeSignal: Void = {
    var current = sigaction()
    if sigaction(SIGXFSZ, nil, &current) == 0, current.__sigaction_handler.sa_handler == nil {
      signal(SIGXFSZ, SIG_IGN)
    }
  }()

  static func isSymbolicLink(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFLNK
  }

  /// Asks the kernel to write dirty pages back (not needed for crash safety against
  /// a killed process, which the page cache already gives; this is for power loss).
  func flush() {
    if writable, length > 0 { msync(base, length, MS_ASYNC) }
  }

  /// Takes the pages covering `length` bytes at `offset` out of this process's memory
  /// (MADV_DONTNEED). The mapping is shared, so the bytes stay in the page cache and
  /// the file: a later read maps them back, unchanged.
  func releasePages(offset: Int, length: Int) {
    let page = EntryLayout.pageSize
    let start = offset / page * page
    let end = EntryLayout.roundUp(offset + length, to: page)
    madvise(base + start, end - start, MADV_DONTNEED)
  }

  /// Sets the permission bits, for an existing file whose format's protection changed.
  func setPermissions(_ permissions: UInt16) {
    fchmod(descriptor, mode_t(permissions))
  }

  static func error(_ path: String, _ operation: String) -> ImageTableError {
    .io(path: path, operation: operation, message: String(cString: strerror(errno)))
  }
}

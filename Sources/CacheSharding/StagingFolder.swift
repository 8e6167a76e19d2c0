import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A folder built beside a destination and then moved into its place in one step, so
/// that the destination is either as it was or complete, never half-written.
///
/// A new destination is `rename(2)`d into place. An existing one is swapped with
/// `renameat2(RENAME_EXCHANGE)` (Linux 3.15 and later; ext4, xfs, btrfs, tmpfs), and
/// the old contents, now in the staging path, are removed; readers that still map the
/// old files keep them until they let go.
struct StagingFolder {
  let url: URL
  let destination: URL

  /// Makes a new, empty folder beside `destination` (creating `destination`'s parent).
  init(beside destination: URL) throws(MergeError) {
    self.destination = destination.standardizedFileURL
    let parent = self.destination.deletingLastPathComponent()
    url = parent.appendingPathComponent(
      ".\(self.destination.lastPathComponent).merge-\(UUID().uuidString.prefix(8))")
    do {
      try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    } catch {
      throw .io(path: url.path, operation: "mkdir", message: error.localizedDescription)
    }
  }

  /// Writes every file in the folder, and the folder itself, to disk.
  func synchronize() throws(MergeError) {
    for name in try Self.names(in: url) {
      try Self.fsync(url.appendingPathComponent(name).path, directory: false)
    }
    try Self.fsync(url.path, directory: true)
  }

  /// Moves the folder into the destination's place. Returns false when the file system
  /// cannot exchange two folders atomically (nothing has moved then).
  func moveIntoPlace(destinationExists: Bool) throws(MergeError) -> Bool {
    let flags: UInt32 = destinationExists ? Self.renameExchange : Self.renameNoReplace
    if let renameat2 = Self.renameat2 {
      if renameat2(AT_FDCWD, url.path, AT_FDCWD, destination.path, flags) == 0 {
        try Self.fsync(destination.deletingLastPathComponent().path, directory: true)
        return true
      }
      let code = errno
      if code != EINVAL && code != ENOSYS && code != ENOTSUP {
        throw .io(
          path: destination.path, operation: "renameat2", message: String(cString: strerror(code)))
      }
    }
    if destinationExists { return false }
    guard rename(url.path, destination.path) == 0 else {
      throw .io(
        path: destination.path, operation: "rename", message: String(cString: strerror(errno)))
    }
    try Self.fsync(destination.deletingLastPathComponent().path, directory: true)
    return true
  }

  /// Removes the folder and everything in it (after an exchange: the old contents).
  func remove() {
    try? FileManager.default.removeItem(at: url)
  }

  static func names(in folder: URL) throws(MergeError) -> [String] {
    do {
      return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    } catch {
      throw .io(path: folder.path, operation: "list", message: error.localizedDescription)
    }
  }

  static func link(_ source: URL, to target: URL) throws(MergeError) {
    unlink(target.path)
    guard Glibc.link(source.path, target.path) == 0 else {
      throw .io(path: target.path, operation: "link", message: String(cString: strerror(errno)))
    }
  }

  static func fsync(_ path: String, directory: Bool) throws(MergeError) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0))
    guard descriptor >= 0 else {
      throw .io(path: path, operation: "open", message: String(cString: strerror(errno)))
    }
    defer { close(descriptor) }
    guard Glibc.fsync(descriptor) == 0 else {
      throw .io(path: path, operation: "fsync", message: String(cString: strerror(errno)))
    }
  }

  // glibc declares renameat2 only under _GNU_SOURCE, which Swift's Glibc module does
  // not define; look it up at run time instead (nil on a C library without it).
  private typealias RenameAt2 =
    @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32
  private static let renameNoReplace: UInt32 = 1  // RENAME_NOREPLACE
  private static let renameExchange: UInt32 = 2  // RENAME_EXCHANGE
  private static let renameat2: RenameAt2? = dlsym(nil, "renameat2").map {
    unsafeBitCast($0, to: RenameAt2.self)
  }
}

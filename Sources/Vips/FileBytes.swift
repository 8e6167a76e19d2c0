#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file's bytes read in one pass straight into an array (no `Data` in between), with
/// the errors libvips's own file checks give.
///
/// Only regular files are read: a FIFO, a device such as `/dev/zero` or a socket is
/// refused before any byte is read, so that an endless source cannot hang a render. A
/// file larger than `maximumBytes` is refused too. A file that grows or shrinks while it
/// is read gives the bytes that were there when the read reached its end.
///
/// <!-- snippet context: let path = "photo.jpg" -->
/// ```swift
/// let bytes = try FileBytes.read(path)
/// let image = try VipsImage(bytes: bytes, name: path)
/// ```
public enum FileBytes {
  /// The largest file read by default: 1 GiB, far above any photo a cache renders.
  public static let standardMaximumBytes = 1 << 30

  /// The bytes of the regular file at `path`; throws ``VipsError/unreadable(source:message:)``
  /// ("no such file", "it is a directory", "permission denied", "not a regular file", "larger
  /// than ...", or the system's reason).
  public static func read(_ path: String, maximumBytes: Int = standardMaximumBytes)
    throws(VipsError) -> [UInt8]
  {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    // A name that is not UTF-8 comes escaped (see PathText): the file it names.
    if descriptor < 0, errno == ENOENT, let raw = PathText.onDisk(path) {
      return try read(pathBytes: raw, name: path, maximumBytes: maximumBytes)
    }
    return try read(descriptor, name: path, maximumBytes: maximumBytes)
  }

  /// The bytes of the regular file whose path is `pathBytes` as the file system holds it
  /// (a name that is not UTF-8 kept byte for byte); `name` is how errors call it.
  public static func read(
    pathBytes: [UInt8], name: String, maximumBytes: Int = standardMaximumBytes
  ) throws(VipsError) -> [UInt8] {
    let descriptor = (pathBytes + [0]).withUnsafeBufferPointer {
      $0.withMemoryRebound(to: CChar.self) {
        open($0.baseAddress!, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
      }
    }
    return try read(descriptor, name: name, maximumBytes: maximumBytes)
  }

  /// What a file that is not regular is, in words: "a FIFO", "a socket", "a character
  /// device", "a block device", "a symbolic link"; nil for a regular file or folder.
  public static func kind(_ mode: mode_t) -> String? {
    switch mode & S_IFMT {
    case S_IFIFO: "a FIFO"
    case S_IFSOCK: "a socket"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    case S_IFLNK: "a symbolic link"
    case S_IFREG, S_IFDIR: nil
    default: "not a file"
    }
  }

  /// Reads the file open on `descriptor` (closed here; a negative one: open failed with
  /// `errno`).
  private static func read(_ descriptor: Int32, name path: String, maximumBytes: Int)
    throws(VipsError) -> [UInt8]
  {
    guard descriptor >= 0 else { throw .unreadable(source: path, message: reason(errno)) }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      throw .unreadable(source: path, message: reason(errno))
    }
    switch status.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: throw .unreadable(source: path, message: "it is a directory")
    default:
      throw .unreadable(
        source: path, message: "not a regular file (\(kind(status.st_mode) ?? "not a file"))")
    }
    let size = Int(status.st_size)
    guard size <= maximumBytes else { throw tooLarge(path, maximumBytes) }
    // One byte more than fstat says: a file that grew is noticed by that byte arriving.
    var failure: Int32 = 0
    var bytes = [UInt8](unsafeUninitializedCapacity: size + 1) { buffer, count in
      count = 0
      while count < buffer.count {
        let got = systemRead(descriptor, buffer.baseAddress! + count, buffer.count - count)
        if got > 0 {
          count += got
        } else if got == 0 {
          return
        } else if errno != EINTR {
          failure = errno
          return
        }
      }
    }
    if failure != 0 { throw .unreadable(source: path, message: reason(failure)) }
    guard bytes.count > size else { return bytes }
    // It grew while read: the rest in chunks, up to the limit.
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let got = chunk.withUnsafeMutableBytes {
        systemRead(descriptor, $0.baseAddress!, $0.count)
      }
      if got == 0 { return bytes }
      if got < 0 {
        if errno == EINTR { continue }
        throw .unreadable(source: path, message: reason(errno))
      }
      guard bytes.count + got <= maximumBytes else { throw tooLarge(path, maximumBytes) }
      bytes.append(contentsOf: chunk[..<got])
    }
  }

  private static func tooLarge(_ path: String, _ maximumBytes: Int) -> VipsError {
    .unreadable(source: path, message: "larger than the limit of \(maximumBytes) bytes")
  }

  /// The words libvips's file checks use for the common failures (and a path too long,
  /// a link loop); the system's otherwise.
  public static func reason(_ code: Int32) -> String {
    switch code {
    case ENOENT, ENOTDIR: "no such file"
    case EISDIR: "it is a directory"
    case EACCES, EPERM: "permission denied"
    case ENAMETOOLONG: "the path is longer than the system's limit of \(PATH_MAX) bytes"
    case ELOOP: "a symbolic link loop"
    default: String(cString: strerror(code))
    }
  }
}

/// The system's `read(2)` (the name `read` inside ``FileBytes`` is its own).
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int)
  -> Int
{
  read(descriptor, buffer, count)
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A 64-bit little-endian ELF file (a shared library or an executable) as its program
/// headers describe it, read with a few `pread`s, not by mapping it.
///
/// Any other file (not ELF, 32-bit, big-endian, headers cut short) gives nil.
struct ELFFile: ~Copyable {
  /// One program header: a part of the file and where it is loaded.
  struct Segment {
    static let load: UInt32 = 1  // PT_LOAD
    static let dynamic: UInt32 = 2  // PT_DYNAMIC
    var type: UInt32
    var offset: UInt64
    var address: UInt64
    var fileSize: UInt64
  }

  let descriptor: Int32
  let segments: [Segment]
  /// The file's length now.
  let length: UInt64

  /// More program headers than any library has: a damaged file.
  private static let maximumSegments = 256

  init?(path: String) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    var status = stat()
    guard fstat(descriptor, &status) == 0,
      let header = Self.bytes(descriptor, at: 0, count: 64),
      header[0..<4] == [0x7F, 0x45, 0x4C, 0x46],  // "\x7fELF"
      header[4] == 2,  // ELFCLASS64
      header[5] == 1  // ELFDATA2LSB
    else {
      close(descriptor)
      return nil
    }
    let tableOffset = Self.integer(header, at: 32, size: 8)
    let entrySize = Int(Self.integer(header, at: 54, size: 2))
    let entryCount = Int(Self.integer(header, at: 56, size: 2))
    guard entrySize >= 56, entryCount <= Self.maximumSegments,
      let table = Self.bytes(descriptor, at: tableOffset, count: entrySize * entryCount)
    else {
      close(descriptor)
      return nil
    }
    self.descriptor = descriptor
    self.length = UInt64(status.st_size)
    self.segments = (0..<entryCount).map { index in
      let base = index * entrySize
      return Segment(
        type: UInt32(Self.integer(table, at: base, size: 4)),
        offset: Self.integer(table, at: base + 8, size: 8),
        address: Self.integer(table, at: base + 16, size: 8),
        fileSize: Self.integer(table, at: base + 32, size: 8))
    }
  }

  deinit { close(descriptor) }

  /// Where the file's loadable segments end: a longer file than it is was cut short
  /// (the dynamic loader maps it all the same and dies of SIGBUS on the missing pages).
  var loadedLength: UInt64 {
    segments.filter { $0.type == Segment.load }
      .map { $0.offset.addingReportingOverflow($0.fileSize).partialValue }.max() ?? 0
  }

  /// `count` bytes at `offset` in the file, or nil when it holds fewer.
  func bytes(at offset: UInt64, count: Int) -> [UInt8]? {
    Self.bytes(descriptor, at: offset, count: count)
  }

  static func bytes(_ descriptor: Int32, at offset: UInt64, count: Int) -> [UInt8]? {
    guard count >= 0, offset <= UInt64(Int64.max) else { return nil }
    var buffer = [UInt8](repeating: 0, count: count)
    let read = buffer.withUnsafeMutableBytes {
      pread(descriptor, $0.baseAddress, count, off_t(offset))
    }
    return read == count ? buffer : nil
  }

  /// The little-endian integer of `size` bytes at `offset`.
  static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
    var value: UInt64 = 0
    for index in (0..<size).reversed() {
      value = value << 8 | UInt64(bytes[offset + index])
    }
    return value
  }
}

import Foundation

/// Refuses a PNG whose chunk declares more data than the file holds, from the chunk
/// lengths alone, before libpng reads it.
///
/// libpng allocates a buffer of the declared length for every chunk it keeps whole (the
/// text chunks `tEXt`, `zTXt` and `iTXt`, `sPLT`, `iCCP`, `eXIf`, unknown ones), and only
/// then finds the file too short: a 57-byte file whose `iTXt` claims a gigabyte made
/// libvips take 1.08 GB and 4-5 s to refuse it, and a batch of such files at once
/// several gigabytes. A PNG's chunk lengths are in plain sight (a 4-byte length before
/// each chunk's type), so the walk below reads 8 bytes a chunk and nothing else.
///
/// `IDAT` is left to the decoder: libpng streams image data and never holds a whole
/// `IDAT`, and a file cut short inside its pixels is judged by the truncation checks
/// (``TruncationCheck``, ``FailOn``).
enum PNGChunkCheck {
  /// PNG's 8-byte signature.
  static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

  /// A chunk that runs past the end of the file.
  struct OverlongChunk: Equatable {
    /// The chunk's 4-letter type, escaped when it is not ASCII letters.
    var type: String
    /// Where the chunk's length field starts, from the start of the file.
    var offset: Int
    /// The length of its data, as the chunk declares it.
    var declaredLength: Int
    /// How many bytes the file holds after the chunk's type.
    var available: Int

    var reason: String {
      "\(PNGChunkCheck.reasonStart)\(type)' at byte \(offset) declares \(declaredLength) bytes of data, "
        + "but the file ends \(available) bytes after its start; refused before decoding"
    }
  }

  /// How an overlong chunk's ``OverlongChunk/reason`` starts.
  static let reasonStart = "the PNG chunk '"

  /// The first chunk of a PNG that is not `IDAT` and declares more data than the file
  /// holds, or nil when every chunk fits (or the bytes are not a PNG).
  ///
  /// - Parameters:
  ///   - size: the length of the whole file.
  ///   - read: the bytes at an offset, at most a count of them (fewer at the end).
  static func overlongChunk(size: Int, read: (_ offset: Int, _ count: Int) -> [UInt8])
    -> OverlongChunk?
  {
    guard read(0, signature.count) == signature else { return nil }
    var offset = signature.count
    while offset + 8 <= size {
      let header = read(offset, 8)
      guard header.count == 8 else { return nil }
      let length = header[0..<4].reduce(0) { $0 << 8 | Int($1) }
      let type = Array(header[4..<8])
      let start = offset + 8
      // Data, then a 4-byte CRC.
      let end = start + length + 4
      if type == Array("IEND".utf8) { return nil }
      if end > size, type != Array("IDAT".utf8) {
        return OverlongChunk(
          type: name(type), offset: offset, declaredLength: length, available: size - start)
      }
      offset = end
    }
    return nil
  }

  /// The overlong chunk of `bytes`, a whole file held in memory.
  static func overlongChunk(in bytes: [UInt8]) -> OverlongChunk? {
    overlongChunk(size: bytes.count) { offset, count in
      Array(bytes[min(offset, bytes.count)..<min(offset + count, bytes.count)])
    }
  }

  /// The overlong chunk of the file at `path`, read 8 bytes a chunk; nil when the file
  /// cannot be read (the loader says why).
  static func overlongChunk(file path: String) -> OverlongChunk? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
    return overlongChunk(size: Int(status.st_size)) { offset, count in
      var buffer = [UInt8](repeating: 0, count: count)
      let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, offset) }
      return Array(buffer.prefix(max(0, got)))
    }
  }

  /// A chunk type as a person reads it: its letters, or its bytes in hex.
  private static func name(_ type: [UInt8]) -> String {
    let letters = type.allSatisfy { (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    return letters
      ? String(decoding: type, as: UTF8.self)
      : type.map { String(format: "%02X", $0) }.joined(separator: " ")
  }
}

import Foundation

/// Tells, from the bytes alone, whether a JPEG or PNG stops before its end marker.
///
/// libvips keeps one error buffer for the whole process, so when several decodes fail
/// at once their messages can mix. Whether a file is cut short is decided here, from
/// the file itself, so each failure is named for what it is.
enum TruncationCheck {
  /// How many bytes at the end to search for the end marker (encoders may pad after it).
  static let tailLength = 1024

  static func isTruncated(file path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    let head = (try? handle.read(upToCount: 8)).map { [UInt8]($0) } ?? []
    guard let size = try? handle.seekToEnd() else { return false }
    try? handle.seek(toOffset: size > UInt64(tailLength) ? size - UInt64(tailLength) : 0)
    let tail = (try? handle.readToEnd()).map { [UInt8]($0) } ?? []
    return isTruncated(head: head, tail: tail)
  }

  static func isTruncated(bytes: [UInt8]) -> Bool {
    isTruncated(head: Array(bytes.prefix(8)), tail: Array(bytes.suffix(tailLength)))
  }

  static func isTruncated(head: [UInt8], tail: [UInt8]) -> Bool {
    if head.starts(with: [0xFF, 0xD8]) {  // JPEG: ends with EOI, FF D9
      return !contains(tail, [0xFF, 0xD9])
    }
    if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) {  // PNG: ends with the IEND chunk
      return !contains(tail, Array("IEND".utf8))
    }
    return false
  }

  private static func contains(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
    guard bytes.count >= pattern.count else { return false }
    return (0...(bytes.count - pattern.count)).contains { start in
      bytes[start..<(start + pattern.count)].elementsEqual(pattern)
    }
  }
}

import CVipsShim
import Foundation

/// Tells, from the bytes alone, whether a JPEG or PNG stops before its end marker.
///
/// libvips keeps one error buffer for the whole process, so when several decodes fail
/// at once their messages can mix. Whether a file is cut short is decided here, from
/// the file itself, so each failure is named for what it is.
enum TruncationCheck {
  /// How many bytes at the end to search for the end marker (encoders may pad after it).
  static let tailLength = 1024

  /// Whether the file is a JPEG without an EOI marker in its tail.
  static func isJPEGWithoutEndMarker(file path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    let head = (try? handle.read(upToCount: 2)).map { [UInt8]($0) } ?? []
    return head == [0xFF, 0xD8] && isTruncated(file: path)
  }

  /// The file's bytes, or nil if it cannot be read.
  static func contents(of path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
  }

  static func isTruncated(file path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    let head = (try? handle.read(upToCount: 8)).map { [UInt8]($0) } ?? []
    guard let size = try? handle.seekToEnd() else { return false }
    try? handle.seek(toOffset: size > UInt64(tailLength) ? size - UInt64(tailLength) : 0)
    let tail = (try? handle.readToEnd()).map { [UInt8]($0) } ?? []
    return isTruncated(head: head, tail: tail)
  }

  /// The reason of a file judged cut short from its bytes, whatever libvips's shared
  /// error buffer holds.
  static let endsEarly = "the file ends before its end marker"

  /// libjpeg's warning when a scan of `jpeg` runs out of data (it meets a marker or the
  /// end of the file before its last block, and libjpeg fills the rest of the photo with
  /// grey), nil when every scan is whole. An EOI marker after the cut does not make the
  /// scan whole: a truncated JPEG with `FF D9` appended, a stray marker mid-scan, or a
  /// header claiming more rows than the data holds all decode, with only this warning.
  ///
  /// It decodes the file again at 1/8 scale with libjpeg itself, which tells its warnings
  /// apart (libvips puts their text in its one error buffer, shared by every thread): for
  /// a decode that warned (``decodeWarned(_:)``) only.
  static func scanRunsOut(jpeg bytes: [UInt8]) -> String? {
    var message = [CChar](repeating: 0, count: 200)
    let found = bytes.withUnsafeBytes { data in
      cvips_jpeg_scan_runs_out(data.baseAddress, data.count, &message, message.count)
    }
    guard found == 1 else { return nil }
    let text = String(decoding: message.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
    return "libjpeg: \(text)"
  }

  /// Whether libvips's JPEG loader said, on this thread (``WarningLog/onThisThread(_:)``),
  /// that the decode raised warnings ("read gave 1 warnings").
  static func decodeWarned(_ warnings: [String]) -> Bool {
    warnings.contains { $0.hasPrefix("read gave ") }
  }

  /// The reason given for a JPEG whose scan ran out of data (``scanRunsOut(jpeg:)``).
  static func scanRanOutReason(_ warning: String) -> String {
    "\(scanRanOut) (libvips: \(warning))"
  }

  private static let scanRanOut =
    "a scan runs out of data before the photo's last row (libjpeg would fill the rest "
    + "with grey)"

  /// Whether a truncation's `message` is our own reason, from the file's bytes
  /// (``endsEarly``, ``scanRanOutReason(_:)``, a PNG chunk's), rather than libvips's text.
  static func isOwnReason(_ message: String) -> Bool {
    message == endsEarly || message.hasPrefix(scanRanOut)
      || message.hasPrefix(PNGChunkCheck.reasonStart)
  }

  /// JPEG's end-of-image marker, EOI.
  static let jpegEndMarker: [UInt8] = [0xFF, 0xD9]

  /// Whether `jpeg` is a JPEG without an EOI marker in its tail: the file a browser
  /// still shows when its scans are whole (``FailOn/truncated`` decides that by decoding
  /// it with the marker put back).
  static func lacksEndMarker(jpeg bytes: [UInt8]) -> Bool {
    bytes.starts(with: [0xFF, 0xD8]) && isTruncated(bytes: bytes)
  }

  static func isTruncated(bytes: [UInt8]) -> Bool {
    isTruncated(head: Array(bytes.prefix(8)), tail: Array(bytes.suffix(tailLength)))
  }

  static func isTruncated(head: [UInt8], tail: [UInt8]) -> Bool {
    if head.starts(with: [0xFF, 0xD8]) {  // JPEG: ends with EOI, FF D9
      return !contains(tail, jpegEndMarker)
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

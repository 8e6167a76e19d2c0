extension VipsError {
  /// What kind of thing is wrong, for a program to act on (and a test to expect)
  /// without reading the words of ``VipsError/description``.
  public enum Kind: String, Sendable, Equatable, CaseIterable {
    /// The data ends before the image does: a file cut short.
    case truncated
    /// The data is there but wrong: a bad value or marker, compressed data that does
    /// not decompress.
    case damaged
    /// A checksum the format carries (a PNG chunk's CRC, zlib's Adler-32) does not match.
    case checksum
    /// A variant of the format that the loader does not read (a compression, a bit
    /// depth, a layout).
    case unsupported
    /// No loader recognises the bytes as an image.
    case notAnImage
    /// Only a loader that is blocked for untrusted input can read it.
    case blocked
    /// More pixels, or a longer side, than the limit allows.
    case tooLarge
    /// The file does not exist or cannot be read.
    case unreadable
    /// The file or buffer holds no bytes.
    case empty
    /// Decoding and processing took longer than the time limit (or, not started, too
    /// many earlier images that did are still running: see
    /// ``VipsError/tooManyAbandonedWorkers(source:outstanding:)``).
    case timedOut
    /// Anything else: libvips could not start, an argument out of range, an operation
    /// that failed for a reason not named here.
    case other
  }
}

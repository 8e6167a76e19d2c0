import Foundation

/// gzip data (an SVGZ drawing, a `.gz` file) is refused before libvips looks at it.
///
/// No loader this library lets run reads gzip data: libvips 8.14 reads it only in
/// `svgload` (and `magickload`), which are blocked for untrusted input (see
/// ``Vips/start()``). And libvips 8.14's SVG sniff, which every loader search runs
/// (blocked or not), loops for ever on a gzip stream that ends, with bytes after it,
/// before it has inflated 224 bytes (`vips_foreign_load_svg_is_a`: `inflate` keeps
/// answering `Z_STREAM_END` and the loop waits for the input to run out): a 100-byte
/// file hung every command. Refusing the gzip signature first costs two bytes' read.
enum GzipCheck {
  /// gzip's signature, `1F 8B` (RFC 1952).
  static let signature: [UInt8] = [0x1F, 0x8B]

  static func isGzip(_ bytes: [UInt8]) -> Bool {
    bytes.starts(with: signature)
  }

  static func isGzip(file path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    guard let first = try? handle.read(upToCount: signature.count) else { return false }
    return [UInt8](first) == signature
  }

  /// The refusal: the loader that would read it is blocked.
  static func refusal(source: String) -> VipsError {
    .blockedLoader(
      source: source, loader: "svgload",
      format: "gzip-compressed data (an SVGZ drawing, or another compressed file)")
  }
}

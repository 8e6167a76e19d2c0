import Foundation
import Vips

/// The TIFFs of `Tests/Fixtures/bad` (`tiff-*.tif`, written byte by byte by
/// `Scripts/make-bad-tiffs`), each damaged or a variant libvips 8.14 does not read, and
/// the refusal each must give: our words, then libvips's text in "(libvips: ...)".
///
/// `info`, `info --check`, `apply` and a decode through the library all give the same
/// reason for these files.
public struct BadTIFF: Sendable, CustomStringConvertible {
  /// The file's name in `Tests/Fixtures/bad`.
  public let name: String
  /// What is wrong with it, in a few words.
  public let about: String
  /// The kind of the refusal.
  public let kind: VipsError.Kind
  /// The refusal's reason (its text after "<file>: "), exactly; for a file whose
  /// libvips text is ``libvipsLines``, our words alone.
  public let reason: String
  /// The lines libvips's text is made of, in order, when it is cut short at libvips's
  /// error buffer's end (and ends in "; ..."), rather than said in full in ``reason``.
  public let libvipsLines: [String]?

  public var description: String { name }

  /// The file's path.
  public var path: String { Fixtures.folder.appendingPathComponent("bad/\(name)").path }

  /// Whether `text`, a refusal's reason, is the one this file must give.
  public func isReason(_ text: String) -> Bool {
    guard let libvipsLines else { return text == reason }
    let head = "\(reason) (libvips: "
    let tail = "; ...)"
    guard text.hasPrefix(head), text.hasSuffix(tail) else { return false }
    let libvips = text.dropFirst(head.count).dropLast(tail.count)
    // Cut wherever the buffer ended, after at least half the lines.
    let whole = libvipsLines.joined(separator: "; ")
    let half = libvipsLines.prefix(libvipsLines.count / 2).joined(separator: "; ")
    return whole.hasPrefix(libvips) && libvips.count >= half.count
  }

  init(
    _ name: String, _ about: String, _ kind: VipsError.Kind, _ reason: String,
    libvipsLines: [String]? = nil
  ) {
    self.name = name
    self.about = about
    self.kind = kind
    self.reason = reason
    self.libvipsLines = libvipsLines
  }

  private static let readError = "tiff2vips: read error"

  /// Every one, by name.
  public static let all: [BadTIFF] = [
    BadTIFF(
      "tiff-strip-past-end.tif", "122 bytes; its one strip at byte 4096", .truncated,
      "the TIFF ends early: its strip 0 is at byte 4096, past the file's end (122 bytes) "
        + "(libvips: source: bad seek to 4096; TIFFFillStrip: Seek error at scanline "
        + "4294967295, strip 0; \(readError))"),
    BadTIFF(
      "tiff-tile-past-end.tif", "134 bytes, tiled; its one tile at byte 4096", .truncated,
      "the TIFF ends early: its tile 0 is at byte 4096, past the file's end (134 bytes) "
        + "(libvips: source: bad seek to 4096; TIFFFillTile: Seek error at row 4294967295, "
        + "col 4294967295, tile 0)"),
    BadTIFF(
      "tiff-tiled-separate-planes.tif", "tiled RGB, each colour in a plane of its own",
      .unsupported,
      "the TIFF is tiled with each colour in a plane of its own, a layout libvips's TIFF "
        + "reader does not read (libvips: tiff2vips: tiled separate planes not supported)"),
    BadTIFF(
      "tiff-subsampled.tif", "uncompressed YCbCr, chroma subsampled 2x2", .unsupported,
      "the TIFF's colour is subsampled YCbCr in a form libvips's TIFF reader does not read "
        + "(libvips: tiff2vips: subsampled images not supported)"),
    BadTIFF(
      "tiff-12-bit.tif", "one 12-bit sample a pixel", .unsupported,
      "the TIFF's pixels are not a whole number of bytes (12-bit samples, say), which "
        + "libvips's TIFF reader does not read (libvips: tiff2vips: samples_per_pixel not a "
        + "whole number of bytes)"),
    BadTIFF(
      "tiff-samples-out-of-range.tif", "64 bits a sample", .damaged,
      "the TIFF's header is damaged: it gives more than 10000 samples a pixel or more than "
        + "32 bits a sample (libvips: tiff2vips: samples out of range)"),
    BadTIFF(
      "tiff-no-photometric.tif", "no PhotometricInterpretation (tag 262)", .damaged,
      "the TIFF is damaged: it lacks a tag every TIFF must have: PhotometricInterpretation "
        + "(tag 262) (libvips: tiff2vips: required field 262 missing)"),
    BadTIFF(
      "tiff-zero-strip-byte-count.tif", "two planes, the second strip's byte count 0",
      .damaged,
      "the TIFF is damaged: one of its strips is empty (its byte count is 0) (libvips: "
        + "TIFFFillStrip: Invalid strip byte count 0, strip 1; \(readError))"),
    BadTIFF(
      "tiff-rows-per-strip-overflow.tif", "RGB in planes, RowsPerStrip 2^31 + 1", .damaged,
      "the TIFF is damaged: an uncompressed strip holds fewer bytes than its rows need "
        + "(libvips: DumpModeDecode: Not enough data for scanline 0, expected a request for "
        + "at most 32 bytes, got a request for 64 bytes; \(readError))"),
    BadTIFF(
      "tiff-undefined-tag-types.tif",
      "no PhotometricInterpretation, and 100 entries of type 0, which TIFF does not have",
      .damaged,
      "the TIFF's directory is damaged: it holds entries of types that TIFF does not have",
      libvipsLines: (1000..<1100).map {
        "TIFFFetchNormalTag: Defined set_field_type of custom tag \($0) (Tag \($0)) is "
          + "TIFF_SETGET_UNDEFINED and thus tag is not read from file"
      }),
    BadTIFF(
      "tiff-24-bit.tif", "one 24-bit sample a pixel", .unsupported,
      "the TIFF's samples are of a size or type libvips's TIFF reader does not read (24-bit "
        + "or 16-bit floating-point samples, say) (libvips: tiff2vips: unsupported tiff image "
        + "type)"),
    BadTIFF(
      "tiff-fax-not-fax.tif", "1-bit, CCITT Group 3 fax, its 64 bytes zeros, no fax code",
      .damaged,
      "the TIFF's image data is damaged: libtiff cannot decode it (libvips: \(readError))"),
    BadTIFF(
      "tiff-thunderscan-short.tif", "4-bit ThunderScan, one byte (a run of one) for 64 pixels",
      .truncated,
      "the TIFF's compressed data ends early: a strip holds fewer pixels than its rows need "
        + "(libvips: ThunderDecode: Not enough data at scanline 0 (1 != 8); \(readError))"),
  ]
}

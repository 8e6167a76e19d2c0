import Foundation
import Vips

/// The HEIFs of `Tests/Fixtures/bad` (`heif-*.heic`, written byte by byte by
/// `Scripts/make-bad-heifs`, and `avif-mirrored-10-bit.avif`, one of libavif's test
/// images), each refused by libheif 1.15 in one of the ways that the test images and
/// fuzzing corpora of libheif, libavif and libvips were (issue 25), and the refusal each
/// must give: our words, then libvips's text in "(libvips: ...)" holding libheif's.
///
/// libvips's text also holds lines of its own before libheif's (a TIFF sniff of the
/// bytes, a seek past their end); only libheif's line is pinned.
public struct BadHEIF: Sendable, CustomStringConvertible {
  /// The file's name in `Tests/Fixtures/bad`.
  public let name: String
  /// What is wrong with it, in a few words.
  public let about: String
  /// The kind of the refusal.
  public let kind: VipsError.Kind
  /// Our words: the refusal's reason (its text after "<file>: ") up to libvips's text.
  public let words: String
  /// The line of libvips's text that says libheif's (or heifload's) own reason.
  public let libvips: String

  public var description: String { name }

  /// The file's path.
  public var path: String { Fixtures.folder.appendingPathComponent("bad/\(name)").path }

  /// Whether `text`, a refusal's reason, is the one this file must give.
  public func isReason(_ text: String) -> Bool {
    let head = "\(words) (libvips: "
    guard text.hasPrefix(head), text.hasSuffix(")") else { return false }
    return text.dropFirst(head.count).dropLast().contains(libvips)
  }

  init(
    _ name: String, _ about: String, _ kind: VipsError.Kind, _ words: String,
    libvips: String
  ) {
    self.name = name
    self.about = about
    self.kind = kind
    self.words = words
    self.libvips = libvips
  }

  private static let invalid =
    "the HEIF is damaged: its boxes do not describe an image (one is missing or wrong)"
  private static let pitm =
    "heif: Invalid input: Non-existing item ID referenced: 'pitm' box references a "
    + "non-existing image (2.2000)"

  /// Every one, by name.
  public static let all: [BadHEIF] = [
    BadHEIF(
      "heif-no-meta.heic", "48 bytes: an ftyp box and an empty mdat, no meta box", .damaged,
      invalid, libvips: "heif: Invalid input: No 'meta' box (2.104)"),
    BadHEIF(
      "heif-no-decoder-configuration.heic", "an 8x8 HEVC item without its hvcC property",
      .damaged, invalid,
      libvips: "heif: Invalid input: No 'hvcC' box: No hvcC property in hvc1 type image (2.106)"
    ),
    BadHEIF(
      "heif-primary-missing.heic", "its pitm box names item 2; its one item is item 1",
      .damaged,
      "the HEIF is damaged: its primary image (item 2, named by its 'pitm' box) is not among "
        + "its items", libvips: pitm),
    BadHEIF(
      "heif-uncompressed.heic", "an 8x8 uncompressed ('unci') primary image", .unsupported,
      "the HEIF's primary image is an uncompressed image ('unci'), which the libheif here "
        + "does not read", libvips: pitm),
    BadHEIF(
      "heif-overlay-of-nothing.heic", "an 8x8 overlay ('iovl') of no images", .damaged,
      "the HEIF is damaged: its primary image does not say how many bits its pixels have "
        + "(a grid or overlay that names no images, say)",
      libvips: "undefined bits per pixel"),
    BadHEIF(
      "heif-no-size.heic", "an HEVC item without its ispe property", .damaged,
      "the HEIF is damaged: its primary image has no size (no ispe property, or a side of 0)",
      libvips: "heifload: bad dimensions"),
    BadHEIF(
      "heif-17000x17000.heic", "an HEVC item whose ispe says 17000x17000", .tooLarge,
      "the HEIF image is larger than libheif reads: past its security limit on the size of "
        + "an image",
      libvips: "heif: Memory allocation error: Security limit exceeded: Image size "
        + "17000x17000 exceeds the maximum image size 16384x16384; (6.1000)"),
    BadHEIF(
      "heif-not-hevc.heic", "an 8x8 HEVC item whose 64 bytes of data are not HEVC", .damaged,
      "the HEIF's compressed image data is damaged: its codec cannot decode it",
      libvips: "heif: Decoder plugin generated an error: Unspecified (7.0)"),
    BadHEIF(
      "heif-sequence-brand.heic", "48 bytes: an ftyp box of an image sequence ('msf1') alone",
      .unsupported,
      "the file is an ISO media file that libheif does not read: none of its brands is a "
        + "HEIF or AVIF image's (an image sequence or a video, say)",
      libvips: "heif: Unsupported file-type: Unspecified: File does not include any supported "
        + "brands.; (3.0)"),
    BadHEIF(
      "avif-mirrored-10-bit.avif",
      "libavif's clap_irot_imir_non_essential.avif: a 10-bit AV1 image to be mirrored (imir)",
      .unsupported, "the HEIF uses a feature that the libheif here does not read",
      libvips: "heif: Unsupported feature: Unspecified: Can currently only mirror images with "
        + "8 bits per pixel (4.0)"),
  ]
}

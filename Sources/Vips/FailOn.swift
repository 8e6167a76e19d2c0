import CVips

/// How damaged a source may be and still be decoded: libvips's `fail_on` levels, from the
/// most lenient to the strictest.
///
/// The default, ``truncated``, refuses a file cut short but decodes a JPEG whose scans
/// are all whole and that only lacks its final end-of-image marker (`FF D9`), as
/// browsers, Nuke, Kingfisher and SDWebImage show it: the decode is made with the marker
/// put back, and refused if libjpeg then warns about anything (a scan cut short does:
/// "premature end of data segment").
///
/// <!-- snippet context: let jpeg = [UInt8](try Data(contentsOf: URL(filePath: "ada.jpg"))) -->
/// ```swift
/// let strict = try VipsImage.decode(bytes: jpeg, failOn: .warning) { _ in 1 }.image
/// ```
public enum FailOn: String, Sendable, CaseIterable, CustomStringConvertible {
  /// Decode whatever the file holds: a JPEG cut mid-scan gives its decoded part, the
  /// rest filled in by libjpeg, not the photo; libvips's warnings are only collected
  /// (``Vips/takeWarnings()``).
  case none
  /// Refuse a file cut short (``VipsError/truncated(source:message:)``), and a JPEG whose
  /// scan runs out of data whatever ends the file (an EOI marker appended after the cut,
  /// a stray marker mid-scan, a header taller than the data: libjpeg would fill the rest
  /// with grey); a JPEG missing only its EOI marker decodes. The default.
  case truncated
  /// As libvips's `error`: refuse a file cut short, a missing EOI marker included, and
  /// any error the loader reports.
  case error
  /// As libvips's `warning`: refuse a file the loader warns about at all (libjpeg's
  /// "Corrupt JPEG data: 4 extraneous bytes before marker 0xda" for junk it skips, a
  /// missing EOI marker), the strictest.
  case warning

  public var description: String { rawValue }

  /// The libvips level this one loads with.
  var libvips: VipsFailOn {
    switch self {
    case .none: VIPS_FAIL_ON_NONE
    case .truncated: VIPS_FAIL_ON_TRUNCATED
    case .error: VIPS_FAIL_ON_ERROR
    case .warning: VIPS_FAIL_ON_WARNING
    }
  }
}

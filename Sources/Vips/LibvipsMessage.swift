/// The one table from libvips's error messages (and the loader that raised them) to our
/// words: what is wrong with the file, said so that a person understands it, and the
/// ``VipsError/Kind`` a program acts on.
///
/// libvips's text is kept after ours for the curious (``VipsError/badInput(source:kind:words:message:)``);
/// where the file itself shows more (a PNG chunk whose CRC fails, a WebP cut short),
/// ``FileDamage`` says it instead of the table's general words.
///
/// Each entry is tested with a real file that raises it (`Tests/VipsTests/ErrorWordingTests.swift`).
enum LibvipsMessage {
  /// One row: a piece of libvips's text, the loader whose text it is (nil: any), and ours.
  struct Entry: Sendable {
    /// Text that libvips's message contains (compared without case).
    var pattern: String
    /// A piece of the loader's name that starts its lines (`vipspng`, `tiff2vips`,
    /// `gifload`), or nil when the pattern alone is enough.
    var loader: String?
    var kind: VipsError.Kind
    /// What is wrong, in our words.
    var words: String

    init(_ pattern: String, loader: String? = nil, _ kind: VipsError.Kind, _ words: String) {
      self.pattern = pattern
      self.loader = loader
      self.kind = kind
      self.words = words
    }
  }

  /// The table, most specific first: the first entry whose pattern (and loader) the
  /// message contains names it.
  static let table: [Entry] = [
    // PNG (libpng through libvips's vipspng): libpng's own reason goes to a warning, the
    // error says only this; FileDamage finds the chunk.
    Entry(
      "libpng read error", loader: "png", .damaged,
      "the PNG's compressed image data (IDAT) is damaged: it does not decompress"),
    // TIFF (libtiff through tiff2vips / tiffNvips).
    Entry(
      "Not enough data at scanline", loader: "LZWDecode", .truncated,
      "the TIFF's LZW-compressed data ends early"),
    Entry(
      "Using code not yet in table", .damaged, "the TIFF's LZW-compressed data is damaged"),
    Entry(
      "ZIPDecode: Decoding error", .damaged, "the TIFF's Deflate-compressed data is damaged"),
    // GIF (libnsgif through gifload).
    Entry(
      "Invalid frame data", loader: "gif", .damaged, "the GIF's LZW-compressed frame is damaged"
    ),
    // WebP (libwebp through webpload).
    Entry(
      "unable to parse image", loader: "webp", .damaged,
      "the WebP is damaged: libwebp cannot parse its header"),
    Entry(
      "unable to read pixels", loader: "webp", .damaged,
      "the WebP's compressed pixels are damaged"),
    // JPEG XL (libjxl through jxlload): its one error for data it cannot decode.
    Entry(
      "error JxlDecoderProcessInput", loader: "jxl", .damaged,
      "the JPEG XL data is damaged: libjxl cannot decode it"),
    // JPEG (libjpeg through VipsJpeg).
    Entry(
      "Unsupported JPEG data precision", .unsupported,
      "the JPEG's sample precision is not 8 bits, the only one libjpeg here reads"),
    Entry("Bogus Huffman table definition", .damaged, "the JPEG's Huffman table is damaged"),
    Entry("Bogus marker length", .damaged, "a JPEG marker's length is damaged"),
    Entry("Bogus DQT index", .damaged, "the JPEG's quantisation table is damaged"),
    Entry("Huffman table 0x", .damaged, "the JPEG refers to a Huffman table it lacks"),
    Entry("Invalid JPEG file structure", .damaged, "the JPEG's markers are out of order"),
    Entry(
      "extraneous bytes before marker", .damaged,
      "the JPEG is damaged: bytes that are not JPEG data lie between two of its markers"),
  ]

  /// The entry that names `message`, or nil when none does.
  static func entry(for message: String) -> Entry? {
    let lowered = message.lowercased()
    return table.first { entry in
      lowered.contains(entry.pattern.lowercased())
        && (entry.loader.map { lowered.contains($0.lowercased()) } ?? true)
    }
  }

  /// libvips's message when it gave none: its error buffer was empty.
  static let noReason = "libvips gave no reason"

  /// Removes repeated lines (libvips raises the same line once per worker thread, a
  /// `bad seek` 14 times) and lines that begin with another file's path (libvips keeps
  /// one error buffer for the process, and another decode's failure may be in it), and
  /// joins the rest with "; ", oldest first.
  static func joined(_ lines: [String], source: String? = nil) -> String {
    var seen: Set<String> = []
    let kept = lines.filter { line in
      if let source, line.hasPrefix("/"), !line.hasPrefix(source),
        let colon = line.firstIndex(of: ":"), !line[..<colon].contains(" ")
      {
        return false
      }
      return seen.insert(line).inserted
    }
    return kept.isEmpty ? noReason : kept.joined(separator: "; ")
  }

  /// Why libvips's loaders that can read a file are blocked, by loader, and what the
  /// format is called: said when only such a loader recognises a file.
  static func blockedFormat(loader: String) -> String? {
    switch loader {
    case "ppmload", "ppmload_source": "a PPM/PGM/PBM/PFM image"
    case "matload": "a MATLAB file"
    case "openexrload": "an OpenEXR image"
    case "fitsload", "fitsload_source": "a FITS image"
    case "analyzeload": "an Analyze 7.5 image"
    case "csvload", "csvload_source": "a CSV table"
    case "matrixload", "matrixload_source": "a libvips matrix"
    case "radload", "radload_buffer", "radload_source": "a Radiance HDR image"
    case "svgload", "svgload_buffer", "svgload_source": "an SVG drawing"
    case "jp2kload", "jp2kload_buffer", "jp2kload_source": "a JPEG 2000 image"
    case "vipsload", "vipsload_source": "a libvips image file (.v)"
    case "openslideload", "openslideload_source": "a slide scanner image"
    default: nil
    }
  }

  /// Why any loader is blocked: said after the loader's name.
  static let whyBlocked =
    "is blocked for untrusted input: its parser was never hardened (fuzzed) against "
    + "hostile files, and photos never need it"
}

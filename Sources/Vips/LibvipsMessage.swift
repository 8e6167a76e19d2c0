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
      "Not enough data at scanline", .truncated,
      "the TIFF's compressed data ends early: a strip holds fewer pixels than its rows need"),
    Entry(
      "Using code not yet in table", .damaged, "the TIFF's LZW-compressed data is damaged"),
    Entry(
      "ZIPDecode: Decoding error", .damaged, "the TIFF's Deflate-compressed data is damaged"),
    Entry(
      "tiled separate planes not supported", loader: "tiff2vips", .unsupported,
      "the TIFF is tiled with each colour in a plane of its own, a layout libvips's TIFF "
        + "reader does not read"),
    Entry(
      "subsampled images not supported", loader: "tiff2vips", .unsupported,
      "the TIFF's colour is subsampled YCbCr in a form libvips's TIFF reader does not read"),
    Entry(
      "not a whole number of bytes", loader: "tiff2vips", .unsupported,
      "the TIFF's pixels are not a whole number of bytes (12-bit samples, say), which "
        + "libvips's TIFF reader does not read"),
    Entry(
      "samples out of range", loader: "tiff2vips", .damaged,
      "the TIFF's header is damaged: it gives more than 10000 samples a pixel or more than "
        + "32 bits a sample"),
    Entry(
      "required field", loader: "tiff2vips", .damaged,
      "the TIFF is damaged: it lacks a tag every TIFF must have"),
    Entry(
      "Invalid strip byte count 0", loader: "TIFFFillStrip", .damaged,
      "the TIFF is damaged: one of its strips is empty (its byte count is 0)"),
    Entry(
      "Not enough data for scanline", loader: "DumpModeDecode", .damaged,
      "the TIFF is damaged: an uncompressed strip holds fewer bytes than its rows need"),
    Entry(
      "unsupported tiff image type", loader: "tiff2vips", .unsupported,
      "the TIFF's samples are of a size or type libvips's TIFF reader does not read "
        + "(24-bit or 16-bit floating-point samples, say)"),
    // libtiff's warnings about tags of types TIFF does not have: when a directory holds
    // many, they fill libvips's error buffer and its own reason is lost.
    Entry(
      "TIFF_SETGET_UNDEFINED", loader: "TIFFFetchNormalTag", .damaged,
      "the TIFF's directory is damaged: it holds entries of types that TIFF does not have"),
    // libtiff's decoders that say why only in a warning (a CCITT fax code it cannot
    // read), or say what no row above names: tiff2vips's own last line.
    Entry(
      "tiff2vips: read error", .damaged,
      "the TIFF's image data is damaged: libtiff cannot decode it"),
    // GIF (libnsgif through gifload).
    Entry(
      "Invalid frame data", loader: "gif", .damaged, "the GIF's LZW-compressed frame is damaged"
    ),
    Entry(
      "no frames in GIF", loader: "gif", .damaged,
      "the GIF holds no image: it ends before its first frame"),
    // WebP (libwebp through webpload).
    Entry(
      "unable to parse image", loader: "webp", .damaged,
      "the WebP is damaged: libwebp cannot parse its header"),
    Entry(
      "unable to read pixels", loader: "webp", .damaged,
      "the WebP's compressed pixels are damaged"),
    // HEIF and AVIF (libheif 1.15 through heifload): libheif's error categories
    // ("heif: <category>: <subcategory>: <text>"), its security limit first; FileDamage
    // names a primary image that is missing or of a type libheif does not read.
    Entry(
      "Security limit exceeded", loader: "heif", .tooLarge,
      "the HEIF image is larger than libheif reads: past its security limit on the size "
        + "of an image"),
    Entry(
      "Decoder plugin generated an error", loader: "heif", .damaged,
      "the HEIF's compressed image data is damaged: its codec cannot decode it"),
    Entry(
      "Unsupported file-type", loader: "heif", .unsupported,
      "the file is an ISO media file that libheif does not read: none of its brands is a "
        + "HEIF or AVIF image's (an image sequence or a video, say)"),
    Entry(
      "heif: Unsupported feature", .unsupported,
      "the HEIF uses a feature that the libheif here does not read"),
    Entry(
      "bad dimensions", loader: "heifload", .damaged,
      "the HEIF is damaged: its primary image has no size (no ispe property, or a side of 0)"),
    Entry(
      "undefined bits per pixel", loader: "heifload", .damaged,
      "the HEIF is damaged: its primary image does not say how many bits its pixels have "
        + "(a grid or overlay that names no images, say)"),
    Entry(
      "heif: Invalid input", .damaged,
      "the HEIF is damaged: its boxes do not describe an image (one is missing or wrong)"),
    // JPEG XL (libjxl through jxlload): its one error for data it cannot decode.
    Entry(
      "error JxlDecoderProcessInput", loader: "jxl", .damaged,
      "the JPEG XL data is damaged: libjxl cannot decode it"),
    // JPEG (libjpeg through VipsJpeg).
    Entry(
      "Unsupported JPEG data precision", .unsupported,
      "the JPEG's sample precision is not 8 bits, the only one libjpeg here reads"),
    Entry(
      "Unsupported JPEG process", .unsupported,
      "the JPEG is coded in a process libjpeg here does not read (lossless or hierarchical "
        + "JPEG)"),
    Entry(
      "Empty JPEG image (DNL not supported)", .unsupported,
      "the JPEG gives its height as 0, to be set by a DNL marker after the image data, "
        + "which libjpeg here does not read"),
    Entry(
      "Quantization table 0x", .damaged, "the JPEG refers to a quantisation table it lacks"),
    Entry(
      "Invalid component ID", .damaged,
      "the JPEG's scan refers to a colour component its frame does not have"),
    Entry(
      "Unsupported marker type", .damaged, "the JPEG holds a marker that JPEG does not have"),
    Entry(
      "Invalid progressive parameters", .damaged,
      "the JPEG's progressive scan is damaged: its spectral or bit ranges are not valid"),
    Entry("Bogus DAC index", .damaged, "the JPEG's arithmetic-coding table (DAC) is damaged"),
    Entry("Bogus Huffman table definition", .damaged, "the JPEG's Huffman table is damaged"),
    Entry("Bogus marker length", .damaged, "a JPEG marker's length is damaged"),
    Entry("Bogus DQT index", .damaged, "the JPEG's quantisation table is damaged"),
    Entry("Huffman table 0x", .damaged, "the JPEG refers to a Huffman table it lacks"),
    Entry("Invalid JPEG file structure", .damaged, "the JPEG's markers are out of order"),
    Entry(
      "bad Huffman code", .damaged,
      "the JPEG's compressed data is damaged: it holds a code its Huffman tables do not "
        + "define"),
    Entry(
      "instead of RST", .damaged,
      "the JPEG's compressed data is damaged: another marker stands where a restart marker "
        + "(RST) belongs"),
    Entry(
      "extraneous bytes before marker", .damaged,
      "the JPEG is damaged: bytes that are not JPEG data lie between two of its markers"),
  ]

  /// The entry that names `message`, or nil when none does; a missing TIFF tag is named
  /// (``tiffTagName(_:)``).
  static func entry(for message: String) -> Entry? {
    let lowered = message.lowercased()
    guard
      var found = table.first(where: { entry in
        lowered.contains(entry.pattern.lowercased())
          && (entry.loader.map { lowered.contains($0.lowercased()) } ?? true)
      })
    else { return nil }
    if found.pattern == "required field", let range = lowered.range(of: "required field "),
      let tag = Int(lowered[range.upperBound...].prefix { $0.isNumber })
    {
      found.words += ": \(tiffTagName(tag))"
    }
    return found
  }

  /// The name of a TIFF tag that tiff2vips requires, with its number.
  static func tiffTagName(_ tag: Int) -> String {
    let names = [
      256: "ImageWidth", 257: "ImageLength", 258: "BitsPerSample", 259: "Compression",
      262: "PhotometricInterpretation", 273: "StripOffsets", 277: "SamplesPerPixel",
      278: "RowsPerStrip", 279: "StripByteCounts", 284: "PlanarConfiguration",
      322: "TileWidth", 323: "TileLength", 324: "TileOffsets", 325: "TileByteCounts",
      339: "SampleFormat",
    ]
    return names[tag].map { "\($0) (tag \(tag))" } ?? "tag \(tag)"
  }

  /// libvips's message when it gave none: its error buffer was empty.
  static let noReason = "libvips gave no reason"

  /// Removes repeated lines (libvips raises the same line once per worker thread, a
  /// `bad seek` 14 times) and lines that begin with another file's path (libvips keeps
  /// one error buffer for the process, and another decode's failure may be in it), and
  /// joins the rest with "; ", oldest first.
  static func joined(_ lines: [String], source: String? = nil) -> String {
    var seen: Set<String> = []
    // libtiff's words when libvips tried bytes that are not a TIFF as one, on the way to
    // the loader that reads them: "Not a TIFF" is never about a file that loader refused
    // (a JPEG XL's refusal began "source input: Not a TIFF or MDI file, bad magic number
    // 2815 (0xaff); vips__tiff_openin_source: unable to open source for input").
    let notTIFF = lines.contains { $0.contains(notATIFF) }
    let kept = lines.filter { line in
      if notTIFF, line.contains(notATIFF) || line.hasSuffix(tiffOpenFailed) { return false }
      if let source, line.hasPrefix("/"), !line.hasPrefix(source),
        let colon = line.firstIndex(of: ":"), !line[..<colon].contains(" ")
      {
        return false
      }
      return seen.insert(line).inserted
    }
    return kept.isEmpty ? noReason : kept.joined(separator: "; ")
  }

  /// How libtiff says bytes it was asked to open are not a TIFF.
  static let notATIFF = "Not a TIFF or MDI file, bad magic number"
  /// What libvips adds when libtiff could not open bytes.
  static let tiffOpenFailed = "vips__tiff_openin_source: unable to open source for input"

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

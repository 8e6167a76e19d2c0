/// Formats that only a loader blocked for untrusted input reads, told by their
/// signatures, for a file that no loader registered now recognises.
///
/// ImageMagick (BMP, ICO, TGA, PAM, SGI, PSD, ...) and Poppler (PDF) are libvips modules
/// whose every loader is untrusted; ``ModuleLoading`` never loads them, so libvips does
/// not know their formats and would call such a file "not an image". libvips's own
/// untrusted loaders (PPM, MATLAB, OpenEXR, FITS, Analyze) read files but not buffers,
/// so an image held in memory is not recognised either. Either way the file is one of
/// these formats and is refused because its loader is blocked: the signatures below say
/// which, and which loader would read it.
enum BlockedFormat {
  /// The loader that reads what `bytes` (a file's first bytes) begin as, and the format's
  /// name when that loader reads many (ImageMagick's); `suffix` (lowercase, no dot) tells
  /// a TGA, which has no signature in front.
  static func identify(_ bytes: [UInt8], suffix: String) -> (format: String?, loader: String)? {
    func starts(_ text: String) -> Bool { bytes.starts(with: Array(text.utf8)) }
    func starts(_ prefix: [UInt8]) -> Bool { bytes.starts(with: prefix) }
    if starts("BM"), bytes.count >= 14 { return ("a BMP image", "magickload") }
    if starts([0, 0, 1, 0]), bytes.count >= 6, bytes[4] != 0 || bytes[5] != 0 {
      return ("an ICO icon", "magickload")
    }
    if starts([0, 0, 2, 0]), bytes.count >= 6, bytes[4] != 0 || bytes[5] != 0 {
      return ("a CUR cursor", "magickload")
    }
    if starts("P7\n") { return ("a PAM image", "magickload") }
    if starts([0x01, 0xDA]) { return ("an SGI image", "magickload") }
    if starts("8BPS") { return ("a Photoshop (PSD) image", "magickload") }
    if starts("gimp xcf") { return ("a GIMP (XCF) image", "magickload") }
    if starts("%PDF-") { return ("a PDF document", "pdfload") }
    if bytes.count >= 2, bytes[0] == 0x50, (0x31...0x36).contains(bytes[1]) {
      return (nil, "ppmload")
    }
    if starts("PF\n") || starts("Pf\n") { return (nil, "ppmload") }
    if starts("MATLAB 5.0 MAT-file") { return (nil, "matload") }
    if starts([0x76, 0x2F, 0x31, 0x01]) { return (nil, "openexrload") }
    if starts("SIMPLE  =") { return (nil, "fitsload") }
    if starts([0x5C, 0x01, 0, 0]) || starts([0, 0, 0x01, 0x5C]) {
      return (nil, "analyzeload")
    }
    if suffix == "tga", isTGAHeader(bytes) { return ("a TGA image", "magickload") }
    return nil
  }

  /// Whether `bytes` begin as a TGA header may: a colour map type of 0 or 1 and one of
  /// TGA's image types.
  private static func isTGAHeader(_ bytes: [UInt8]) -> Bool {
    guard bytes.count >= 18 else { return false }
    return bytes[1] <= 1 && [1, 2, 3, 9, 10, 11].contains(bytes[2])
  }

  /// What the loader is, for the words of a refusal.
  static func loaderName(_ loader: String) -> String {
    switch loader {
    case "magickload": "ImageMagick's loader 'magickload'"
    case "pdfload": "Poppler's loader 'pdfload'"
    default: "libvips's loader '\(loader)'"
    }
  }
}

extension Vips {
  /// Why a file named `*.suffix` is not a photo a folder's walk renders, when the suffix
  /// (lowercase, no dot) is a format that only a loader blocked for untrusted input
  /// reads and no trusted loader declares it: the walk names such a file rather than
  /// pass over it without a word, as it does a README. Nil for any other suffix.
  ///
  /// ```swift
  /// Vips.blockedSuffixReason("bmp")
  /// // "BMP images are read only by ImageMagick's loader 'magickload', and that loader is blocked ..."
  /// Vips.blockedSuffixReason("txt")  // nil
  /// ```
  public static func blockedSuffixReason(_ suffix: String) -> String? {
    guard let (format, loader) = BlockedFormat.bySuffix[suffix],
      (try? isTrustedLoaderSuffix(suffix)) != true
    else { return nil }
    return "\(format) are read only by \(BlockedFormat.loaderName(loader)), and that loader "
      + LibvipsMessage.whyBlocked
  }
}

extension BlockedFormat {
  /// The image formats a folder of photos may hold that only a blocked loader reads, by
  /// the suffixes their files have (data files such as `.csv` and `.mat` are left out).
  static let bySuffix: [String: (format: String, loader: String)] = {
    let formats: [([String], String, String)] = [
      (["bmp", "dib"], "BMP images", "magickload"),
      (["ico", "cur"], "ICO icons and CUR cursors", "magickload"),
      (["psd"], "Photoshop (PSD) images", "magickload"),
      (["tga"], "TGA images", "magickload"),
      (["xcf"], "GIMP (XCF) images", "magickload"),
      (["pdf"], "PDF documents", "pdfload"),
      (["svg", "svgz"], "SVG drawings", "svgload"),
      (["ppm", "pgm", "pbm", "pnm", "pfm"], "PPM/PGM/PBM/PFM images", "ppmload"),
      (["exr"], "OpenEXR images", "openexrload"),
      (["fits", "fit", "fts"], "FITS images", "fitsload"),
      (["hdr"], "Radiance HDR images", "radload"),
      (["jp2", "j2k", "jpx", "j2c", "jpc"], "JPEG 2000 images", "jp2kload"),
    ]
    var table: [String: (format: String, loader: String)] = [:]
    for (suffixes, format, loader) in formats {
      for suffix in suffixes { table[suffix] = (format, loader) }
    }
    return table
  }()
}

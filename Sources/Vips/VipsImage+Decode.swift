import CVips
import CVipsShim

extension VipsImage {
  /// Decodes an image held in memory once, with the loader's shrink-on-load only and
  /// never a resample: upright (EXIF orientation applied), 8-bit sRGB (an embedded
  /// profile applied), computed into memory.
  ///
  /// `shrink` receives the header (sizes as displayed) before any pixel is decoded and
  /// says how much the smallest-shrinking consumer of the decode will shrink the photo
  /// in all; the loader shrinks by the factor libvips's thumbnail would pick for that
  /// (see ``ShrinkOnLoad``), so each consumer then resamples once, from this decode.
  ///
  /// The result says which integer factor the loader shrank by: a decoded pixel
  /// stands for that many photo pixels across and down.
  ///
  /// When `keepingICCProfile` says so for the header, an 8-bit RGB photo (alpha or not)
  /// with an embedded profile keeps the profile, its pixels untouched: for a caller that
  /// resamples first and then applies the profile (``toSRGB()``) to fewer pixels, as
  /// thumbnail does. Other photos (CMYK, greyscale, 16-bit) are made 8-bit sRGB all the
  /// same.
  ///
  /// `limits` are checked on the header, and, once the shrink is known, the memory the
  /// decode would take (``ImageLimits/checkDecodeMemory(_:shrunkBy:fileSize:source:)``):
  /// a decompression bomb is refused before the loader allocates for it.
  ///
  /// `failOn` says how damaged the bytes may be (``FailOn``; the default decodes a JPEG
  /// missing only its EOI marker and refuses one cut short).
  ///
  /// <!-- snippet context: let jpeg = [UInt8](try Data(contentsOf: URL(filePath: "ada.jpg"))) -->
  /// ```swift
  /// let (decoded, header, factor) = try VipsImage.decode(bytes: jpeg, name: "ada.jpg") { header in
  ///   Double(min(header.displayWidth, header.displayHeight)) / 256
  /// }
  /// ```
  public static func decode(
    bytes: [UInt8], name: String = "bytes", limits: ImageLimits? = .standard,
    failOn: FailOn = .truncated, keepingICCProfile: (ImageHeader) -> Bool = { _ in false },
    shrink: (ImageHeader) -> Double
  ) throws(VipsError) -> (image: VipsImage, header: ImageHeader, shrunkBy: Int) {
    // Before an image exists libvips cannot be stopped: bounded by a worker instead.
    let probe = try Vips.openBounded(source: name) { () throws(VipsError) in
      try VipsImage(bytes: bytes, name: name, limits: limits)
    }
    let header = probe.header
    guard let storage = probe.anchors.first as? ByteBuffer else {
      throw .invalidArgument(operation: "decode", message: "no bytes to read")
    }
    let factor = ShrinkOnLoad.factor(
      loader: header.loader, shrink: shrink(header),
      smallerSide: min(header.displayWidth, header.displayHeight))
    try limits?.checkDecodeMemory(
      header, shrunkBy: factor, fileSize: bytes.count, source: name)
    let options = ShrinkOnLoad.options(loader: header.loader, factor: factor)
    var decodedByCodecAlone = false
    func load(_ storage: ByteBuffer, _ level: VipsFailOn) throws(VipsError) -> VipsImage {
      // A clean JPEG, PNG or WebP is decoded by its codec alone, to the same pixels; anything
      // the codec warns about goes to libvips's loader, which judges it.
      var loaded: VipsImage
      if let direct = try decodedByCodec(
        storage, like: probe, loader: header.loader, shrunkBy: factor, source: name)
      {
        loaded = direct
        decodedByCodecAlone = true
      } else {
        loaded = try loadedByLibvips(storage, options: options, failOn: level, source: name)
      }
      if header.orientation != 1 {
        // Turning needs the whole image: compute it once, then turn it in memory.
        loaded = try loaded.materializedOnThisThread().autorotated()
      }
      let keeps = loaded.isSRGBButForICCProfile && keepingICCProfile(header)
      let managed = keeps ? loaded : try loaded.toSRGB()
      return try managed.materializedOnThisThread()
    }
    let decoded: VipsImage
    let warnings: [String]
    do {
      if failOn == .truncated, TruncationCheck.lacksEndMarker(jpeg: bytes) {
        // No EOI: decode with the marker put back, refusing any warning, so that only a
        // file whose scans are whole decodes (a scan cut short makes libjpeg warn).
        let restored = ByteBuffer(copying: bytes + TruncationCheck.jpegEndMarker)
        if let image = try? load(restored, VIPS_FAIL_ON_WARNING) {
          return (image, header, factor)
        }
        // Cut short: the file as it is fails with libvips's own reason.
      }
      (decoded, warnings) = try WarningLog.onThisThread { () throws(VipsError) in
        try load(storage, failOn.libvips)
      }
    } catch {
      throw error.classified(
        truncated: TruncationCheck.isTruncated(bytes: bytes), operation: "load")
    }
    // libvips drops a WebP loader's failure when the decode is one strip of rows (its
    // pixels left black): libwebp decodes such a file again (WebPCheck.c). A file that
    // libwebp decoded alone decoded whole.
    if header.loader == "webpload", !decodedByCodecAlone,
      bytes.withUnsafeBufferPointer({
        cvips_webp_decodes_whole($0.baseAddress, $0.count, Int32(factor))
      }) == 0
    {
      // libvips dropped its workers' message, with the threadpool run that succeeded
      // (ThreadErrors.c): said here.
      throw .worded("webp2vips: unable to read pixels", operation: "load", source: name)
    }
    // libvips put the text of the decode's warnings in its one error buffer: left there,
    // the next failure on any thread would be read with them (and called truncated).
    if TruncationCheck.decodeWarned(warnings) { Vips.clearErrors() }
    // libvips's truncated level lets a scan that ran out pass with a warning (the file
    // ends in an EOI marker all the same): refused unless the caller takes anything.
    if failOn != .none, header.loader == "jpegload", TruncationCheck.decodeWarned(warnings),
      let warning = TruncationCheck.scanRunsOut(jpeg: bytes)
    {
      throw .truncated(source: name, message: TruncationCheck.scanRanOutReason(warning))
    }
    return (decoded, header, factor)
  }
}

extension VipsImage {
  /// A clean JPEG, PNG or still WebP decoded by its codec alone into memory, shrunk on
  /// load by `factor` (``decodedByLibjpeg(_:like:shrunkBy:source:)``,
  /// ``decodedByLibpng(_:like:source:)``, ``decodedByLibwebp(_:like:shrunkBy:source:)``);
  /// nil for any other file, or when the codec warns or fails, and libvips's loader must
  /// judge it.
  static func decodedByCodec(
    _ storage: ByteBuffer, like probe: VipsImage, loader: String, shrunkBy factor: Int,
    source: String
  ) throws(VipsError) -> VipsImage? {
    switch loader {
    case "jpegload":
      try decodedByLibjpeg(storage, like: probe, shrunkBy: factor, source: source)
    case "pngload" where factor == 1:
      try decodedByLibpng(storage, like: probe, source: source)
    case "webpload":
      try decodedByLibwebp(storage, like: probe, shrunkBy: factor, source: source)
    default:
      nil
    }
  }

  /// The image a shim decoder (`cvips_jpeg_decode_like`, `cvips_png_decode_like`,
  /// `cvips_webp_decode_like`), called by `decode` with the pointer to fill and `probe`
  /// kept alive, made from its status: 0, the image; 2, the time limit passed (thrown, for
  /// ``Vips/withTimeLimit(_:source:timedOut:_:)`` to name); anything else, nil: the
  /// decoder declined.
  static func decoded(
    by codec: String, like probe: VipsImage, source: String,
    _ decode: (UnsafeMutablePointer<UnsafeMutablePointer<CVips.VipsImage>?>) -> Int32
  ) throws(VipsError) -> VipsImage? {
    var out: UnsafeMutablePointer<CVips.VipsImage>? = nil
    let status = withExtendedLifetime(probe) { decode(&out) }
    switch status {
    case 0:
      guard let out else { return nil }
      return VipsImage(taking: out, source: source, anchors: [])
    case 2:
      throw .worded(
        "the \(codec) decode was stopped at the time limit", operation: "load", source: source)
    default:
      return nil
    }
  }

  /// libvips's own loader on `storage`, with load `options` (a shrink) and `failOn`: the
  /// decode of anything ``decodedByCodec(_:like:loader:shrunkBy:source:)`` leaves, and the
  /// reference that decode is checked against. Computed when its pixels are first read.
  static func loadedByLibvips(
    _ storage: ByteBuffer, options: String, failOn: VipsFailOn, source: String
  ) throws(VipsError) -> VipsImage {
    try create("load", source: source, anchors: [storage]) { out in
      cvips_image_new_from_buffer_options(
        storage.start, storage.count, options, out, VIPS_ACCESS_SEQUENTIAL, failOn)
    }
  }
}

import CVips
import CVipsShim

/// Options of a thumbnail beyond its box.
public struct ThumbnailOptions: Sendable, Equatable {
  /// What to keep when the image's aspect ratio differs from the box's; `.none` fits inside.
  public var crop: Interesting
  /// Whether the image may shrink, grow, or both.
  public var size: SizeMode
  /// Limits checked from the header before the decode; `nil` checks none.
  public var limits: ImageLimits?
  /// A profile (`"srgb"` or a file) to transform an image with an embedded profile to,
  /// after the resize, as `vips thumbnail --export-profile` does; nil for none.
  public var outputProfile: String?
  /// How damaged the file may be (``FailOn``): by default a file cut short fails, and a
  /// JPEG missing only its EOI marker is drawn.
  public var failOn: FailOn

  public init(
    crop: Interesting = .none, size: SizeMode = .both, limits: ImageLimits? = .standard,
    outputProfile: String? = nil, failOn: FailOn = .truncated
  ) {
    self.crop = crop
    self.size = size
    self.limits = limits
    self.outputProfile = outputProfile
    self.failOn = failOn
  }
}

extension VipsImage {
  /// The loader options of a thumbnail: by default a truncated file is an error, not
  /// grey pixels.
  static func thumbnailLoadOptions(_ failOn: FailOn) -> String { "fail_on=\(failOn)" }

  /// Decodes a file straight to a thumbnail, using the loader's shrink-on-load
  /// (JPEG DCT scaling, WebP and PDF scaling...) so a large photo is never decoded whole.
  ///
  /// The decode happens here, once: the thumbnail is held in memory, so any number of
  /// operations may read it afterwards. A truncated or corrupt file fails here.
  ///
  /// The EXIF orientation is applied, so the result is upright. The header is checked
  /// against `options.limits` before anything is decoded.
  ///
  /// ```swift
  /// let avatar = try VipsImage.thumbnail(file: "face.jpg", width: 256, height: 256,
  ///                                      options: .init(crop: .attention))
  /// ```
  public static func thumbnail(
    file path: String, width: Int, height: Int? = nil, options: ThumbnailOptions = .init()
  ) throws(VipsError) -> VipsImage {
    try checkBox(width: width, height: height)
    let probe = try VipsImage(file: path, limits: options.limits)
    var status = stat()
    try checkDecodeMemory(
      probe.header, width: width, height: height, options: options,
      fileSize: stat(path, &status) == 0 ? Int(status.st_size) : 0, source: path)
    if options.failOn == .truncated, TruncationCheck.isJPEGWithoutEndMarker(file: path),
      let bytes = TruncationCheck.contents(of: path)
    {
      // Judged from the bytes, with the marker put back (``FailOn/truncated``).
      return try thumbnail(bytes: bytes, name: path, width: width, height: height, options: options)
    }
    // A source, not a file name: libvips would read "[...]" in a name as load options.
    guard let fileSource = vips_source_new_from_file(path) else {
      throw VipsError.fromLibvips(operation: "thumbnail", source: path)
    }
    defer { g_object_unref(fileSource) }
    do {
      return try create("thumbnail", source: path) { out in
        cvips_thumbnail_source(
          fileSource, out, Int32(width), Int32(height ?? width), options.crop.vips,
          options.size.vips, thumbnailLoadOptions(options.failOn), options.outputProfile)
      }.materialized()
    } catch {
      throw error.classified(truncated: TruncationCheck.isTruncated(file: path))
    }
  }

  /// Decodes an image held in memory straight to a thumbnail, with shrink-on-load;
  /// see ``thumbnail(file:width:height:options:)``.
  public static func thumbnail(
    bytes: [UInt8], name: String = "bytes", width: Int, height: Int? = nil,
    options: ThumbnailOptions = .init()
  ) throws(VipsError) -> VipsImage {
    try checkBox(width: width, height: height)
    let probe = try VipsImage(bytes: bytes, name: name, limits: options.limits)
    try checkDecodeMemory(
      probe.header, width: width, height: height, options: options, fileSize: bytes.count,
      source: name)
    let buffer = probe.anchors
    guard let storage = buffer.first as? ByteBuffer else {
      throw .invalidArgument(operation: "thumbnail", message: "no bytes to read")
    }
    func load(_ storage: ByteBuffer, _ failOn: FailOn) throws(VipsError) -> VipsImage {
      try create("thumbnail", source: name, anchors: [storage]) { out in
        cvips_thumbnail_buffer(
          storage.start, storage.count, out, Int32(width), Int32(height ?? width),
          options.crop.vips, options.size.vips, thumbnailLoadOptions(failOn),
          options.outputProfile)
      }.materialized()
    }
    do {
      if options.failOn == .truncated, TruncationCheck.lacksEndMarker(jpeg: bytes) {
        // As ``decode(bytes:name:limits:failOn:keepingICCProfile:shrink:)``: the marker
        // put back, any warning refused; a file cut short fails as it is.
        let restored = ByteBuffer(copying: bytes + TruncationCheck.jpegEndMarker)
        if let image = try? load(restored, .warning) { return image }
      }
      return try load(storage, options.failOn)
    } catch {
      throw error.classified(truncated: TruncationCheck.isTruncated(bytes: bytes))
    }
  }

  /// Throws when the thumbnail's decode would take more memory than `options.limits`
  /// let a file of `fileSize` bytes take, its shrink-on-load taken as for the smaller of
  /// the box's two shrinks (the most a crop decodes).
  private static func checkDecodeMemory(
    _ header: ImageHeader, width: Int, height: Int?, options: ThumbnailOptions, fileSize: Int,
    source: String
  ) throws(VipsError) {
    guard let limits = options.limits else { return }
    let shrink = min(
      Double(header.displayWidth) / Double(width),
      Double(header.displayHeight) / Double(height ?? width))
    try limits.checkDecodeMemory(
      header, shrunkBy: ShrinkOnLoad.factor(loader: header.loader, shrink: shrink),
      fileSize: fileSize, source: source)
  }

  /// A thumbnail of an image already open (no shrink-on-load: prefer the file and
  /// bytes forms for sources). `outputProfile`, if given, is what an embedded profile
  /// is transformed to after the resize (`vips thumbnail --export-profile`).
  public func thumbnail(
    width: Int, height: Int? = nil, crop: Interesting = .none, size: SizeMode = .both,
    outputProfile: String? = nil
  ) throws(VipsError) -> VipsImage {
    try Self.checkBox(width: width, height: height)
    return try derive("thumbnail") { input, out in
      cvips_thumbnail_image(
        input, out, Int32(width), Int32(height ?? width), crop.vips, size.vips, outputProfile)
    }
  }

  static func checkBox(width: Int, height: Int?) throws(VipsError) {
    guard width > 0, (height ?? width) > 0, width <= maxCoordinate,
      (height ?? width) <= maxCoordinate
    else {
      throw .invalidArgument(
        operation: "thumbnail",
        message: "the box \(width)x\(height ?? width) must have sides from 1 to \(maxCoordinate)")
    }
  }

  /// The largest coordinate libvips accepts.
  static let maxCoordinate = 10_000_000
}

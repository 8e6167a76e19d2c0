import CVips
import CVipsShim
import Foundation

/// One libvips image: immutable, `Sendable`, and owner of exactly one reference.
///
/// Operations return new images and never change the one they start from; pixels
/// are computed only when they are written out (``writePixels()``, ``pngData()``...).
///
/// ```swift
/// let photo = try VipsImage(file: "photo.jpg")
/// let thumb = try photo.resized(scale: 0.25).toSRGB()
/// try thumb.write(to: "thumb.png")
/// ```
public final class VipsImage: @unchecked Sendable {
  // Safety of @unchecked Sendable: the C image is never modified after it is made;
  // libvips computes pixels of a finished image from any number of threads.
  let pointer: UnsafeMutablePointer<CVips.VipsImage>
  /// The file (or `bytes` description) the pixels come from, for error messages.
  public let source: String?
  /// Memory the C image reads lazily (a buffer it was loaded from); kept alive as
  /// long as this image and every image made from it.
  let anchors: [AnyObject]

  init(taking pointer: UnsafeMutablePointer<CVips.VipsImage>, source: String?, anchors: [AnyObject])
  {
    self.pointer = pointer
    self.source = source
    self.anchors = anchors
    // Killed at this thread's time limit, with every image upstream (Deadline.c).
    cvips_deadline_track(pointer)
  }

  deinit {
    g_object_unref(pointer)
  }

  /// Opens an image file, reading only its header; pixels are decoded when needed.
  ///
  /// Checks, before any decode, that the file exists and is not empty, that a
  /// trusted loader recognises it, and that its header is within `limits`
  /// (pass `nil` to skip the limits, for example to report a header).
  public convenience init(file path: String, limits: ImageLimits? = .standard) throws(VipsError) {
    try Vips.start()
    if Vips.timeLeftOnThisThread != nil {
      // Before an image exists libvips cannot be stopped: opened by a worker (which has
      // no limit of its own), and this image takes a reference of its own to the result.
      let opened = try Vips.openBounded(source: path) { () throws(VipsError) in
        try VipsImage(file: path, limits: limits)
      }
      g_object_ref(opened.pointer)
      self.init(taking: opened.pointer, source: path, anchors: opened.anchors)
      return
    }
    try InputCheck.file(path)
    var out: UnsafeMutablePointer<CVips.VipsImage>? = nil
    guard cvips_image_new_from_file(path, &out, VIPS_ACCESS_RANDOM, VIPS_FAIL_ON_TRUNCATED) == 0,
      let out
    else {
      throw VipsError.fromLibvips(operation: "load", source: path)
    }
    self.init(taking: out, source: path, anchors: [])
    try limits?.check(header, source: path)
  }

  /// Opens an image held in memory, reading only its header; the bytes are copied once
  /// and kept alive as long as the image (and any image made from it) needs them.
  ///
  /// - Parameter name: how errors name this image, for example its URL.
  public convenience init(
    bytes: [UInt8], name: String = "bytes", limits: ImageLimits? = .standard
  ) throws(VipsError) {
    try Vips.start()
    let buffer = try InputCheck.bytes(bytes, name: name)
    var out: UnsafeMutablePointer<CVips.VipsImage>? = nil
    guard
      cvips_image_new_from_buffer(
        buffer.start, buffer.count, &out, VIPS_ACCESS_RANDOM, VIPS_FAIL_ON_TRUNCATED) == 0,
      let out
    else {
      throw VipsError.fromLibvips(operation: "load", source: name)
    }
    self.init(taking: out, source: name, anchors: [buffer])
    try limits?.check(header, source: name)
  }

  /// The header values of this image.
  public var header: ImageHeader { ImageHeader(image: pointer) }
  /// Width in pixels.
  public var width: Int { Int(vips_image_get_width(pointer)) }
  /// Height in pixels (all pages, for a multi-page image).
  public var height: Int { Int(vips_image_get_height(pointer)) }
  /// Samples per pixel, alpha included.
  public var bands: Int { Int(vips_image_get_bands(pointer)) }
  /// The numeric type of a sample.
  public var format: BandFormat { BandFormat(vips_image_get_format(pointer)) }
  /// The colour space libvips reads the bands in.
  public var interpretation: Interpretation {
    Interpretation(vips_image_get_interpretation(pointer))
  }
  /// Whether the last band is alpha.
  public var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }
  /// Whether an ICC colour profile is attached.
  public var hasICCProfile: Bool { vips_image_get_typeof(pointer, VIPS_META_ICC_NAME) != 0 }

  /// Runs a libvips operation that makes a new image from this one.
  func derive(
    _ operation: String,
    with others: [VipsImage] = [],
    _ call: (
      UnsafeMutablePointer<CVips.VipsImage>,
      UnsafeMutablePointer<UnsafeMutablePointer<CVips.VipsImage>?>
    ) -> Int32
  ) throws(VipsError) -> VipsImage {
    var out: UnsafeMutablePointer<CVips.VipsImage>? = nil
    let status = withExtendedLifetime(others) { call(pointer, &out) }
    guard status == 0, let out else {
      throw VipsError.fromLibvips(operation: operation, source: source)
    }
    let anchors = others.reduce(into: self.anchors) { $0.append(contentsOf: $1.anchors) }
    return VipsImage(taking: out, source: source, anchors: anchors)
  }

  /// Runs a libvips operation that makes an image from nothing (or from `anchors`).
  static func create(
    _ operation: String, source: String? = nil, anchors: [AnyObject] = [],
    _ call: (UnsafeMutablePointer<UnsafeMutablePointer<CVips.VipsImage>?>) -> Int32
  ) throws(VipsError) -> VipsImage {
    try Vips.start()
    var out: UnsafeMutablePointer<CVips.VipsImage>? = nil
    guard call(&out) == 0, let out else {
      throw VipsError.fromLibvips(operation: operation, source: source)
    }
    return VipsImage(taking: out, source: source, anchors: anchors)
  }

  /// Raises the error of a failed call that produced no image (a save, a statistic).
  func check(_ operation: String, _ status: Int32) throws(VipsError) {
    if status != 0 { throw VipsError.fromLibvips(operation: operation, source: source) }
  }
}

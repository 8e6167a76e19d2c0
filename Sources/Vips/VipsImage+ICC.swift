import CVips
import CVipsShim

extension VipsImage {
  /// The embedded ICC profile's bytes, or nil when there is none.
  public var iccProfile: [UInt8]? {
    guard hasICCProfile else { return nil }
    var data: UnsafeRawPointer? = nil
    var length = 0
    guard vips_image_get_blob(pointer, VIPS_META_ICC_NAME, &data, &length) == 0, let data else {
      return nil
    }
    return [UInt8](UnsafeRawBufferPointer(start: data, count: length))
  }

  /// The same pixels with `profile` embedded as their ICC profile (bytes as given, even
  /// when they are not a valid profile: libvips then falls back on its built-in one).
  public func embeddingICCProfile(_ profile: [UInt8]) throws(VipsError) -> VipsImage {
    let copy = try derive("copy") { input, out in cvips_copy(input, out) }
    profile.withUnsafeBytes { bytes in
      vips_image_set_blob_copy(copy.pointer, VIPS_META_ICC_NAME, bytes.baseAddress, bytes.count)
    }
    return copy
  }

  /// The bytes of a profile built into libvips: `"srgb"`, `"cmyk"` or `"p3"`.
  public static func builtInICCProfile(_ name: String) throws(VipsError) -> [UInt8] {
    var blob: UnsafeMutablePointer<VipsBlob>? = nil
    guard cvips_profile_load(name, &blob) == 0, let blob else {
      throw VipsError.fromLibvips(operation: "profile_load", source: name)
    }
    defer { vips_area_unref(UnsafeMutableRawPointer(blob).assumingMemoryBound(to: VipsArea.self)) }
    var length = 0
    guard let data = vips_blob_get(blob, &length) else { return [] }
    return [UInt8](UnsafeRawBufferPointer(start: data, count: length))
  }

  /// Applies the embedded profile (or, when it is unusable, the built-in one for this
  /// image's space) and drops it, so later steps see plain sRGB: through the shim's
  /// in-process transform when it takes the image, else through libvips.
  ///
  /// Returns nil when libvips cannot apply any profile (as when none fits the bands);
  /// throws when the pixels cannot be read.
  func iccTransformedToSRGB() throws(VipsError) -> VipsImage? {
    if let inProcess = try iccTransformedToSRGBInProcess() { return inProcess }
    return try? iccTransformedToSRGBByLibvips()
  }

  /// The profile this image's ICC transform falls back on when its own is unusable.
  private var fallbackInputProfile: String { interpretation == .cmyk ? "cmyk" : "srgb" }

  /// The shim's ICC transform alone (`ColourTransform.c`): libvips's bytes, computed on
  /// this thread into memory, with one lcms transform built per profile per process.
  /// Nil when the image is not for it (samples not 8-bit, a profile space other than
  /// grey, RGB or CMYK, no usable profile at all).
  func iccTransformedToSRGBInProcess() throws(VipsError) -> VipsImage? {
    let fallback = fallbackInputProfile
    return try inMemory("icc_transform") {
      cvips_icc_transform_to_srgb_cached(pointer, $0, fallback)
    }
  }

  /// The ICC transform through libvips's `vips_icc_transform` always, then a copy without
  /// the profile: the reference the in-process transform is checked against.
  /// `vips_CMYK2XYZ` (libvips's built-in CMYK profile to float XYZ) by the shim, the
  /// same floats with its lcms transform built once per process; nil for an image that
  /// is not 8-bit, 4-band CMYK.
  func cmykToXYZInProcess() throws(VipsError) -> VipsImage? {
    try inMemory("CMYK2XYZ") { cvips_cmyk_to_xyz_cached(pointer, $0) }
  }

  /// The same import and on to 8-bit sRGB in one pass: the bytes of `vips_colourspace`
  /// to sRGB (XYZ to scRGB to sRGB through libvips's own per-pixel functions), without
  /// the float XYZ image between; nil for an image that is not 8-bit, 4-band CMYK.
  func cmykToSRGBInProcess() throws(VipsError) -> VipsImage? {
    try inMemory("CMYK2sRGB") { cvips_cmyk_to_srgb_cached(pointer, $0) }
  }

  /// How many times this process built the shim's CMYK import transform, and how many
  /// images it imported with it.
  static var cmykImportCounts: (built: Int, made: Int) {
    var built: Int32 = 0
    var made: Int32 = 0
    cvips_cmyk_import_counts(&built, &made)
    return (Int(built), Int(made))
  }

  /// `vips_colourspace` itself, in memory: the reference the shim's import is checked
  /// against (to XYZ from CMYK: `vips_CMYK2XYZ`).
  func colourspaceByLibvips(_ interpretation: Interpretation) throws(VipsError) -> VipsImage {
    let space = interpretation.vips
    return try derive("colourspace") { input, out in cvips_colourspace(input, out, space) }
      .materialized()
  }

  func iccTransformedToSRGBByLibvips() throws(VipsError) -> VipsImage {
    let fallback = fallbackInputProfile
    let transformed = try derive("icc_transform") { input, out in
      cvips_icc_transform_embedded(input, out, "srgb", fallback)
    }
    let copy = try transformed.derive("copy") { input, out in cvips_copy(input, out) }
    _ = vips_image_remove(copy.pointer, VIPS_META_ICC_NAME)
    return copy
  }

  /// How many lcms transforms the in-process ICC transform has built in this process for
  /// an input profile with these bytes: 1 however many images used it, unless the cache
  /// evicted it and it was needed again.
  static func iccTransformsBuilt(forProfile profile: [UInt8]) -> Int {
    Int(profile.withUnsafeBytes { cvips_icc_transforms_built($0.baseAddress, $0.count) })
  }
}

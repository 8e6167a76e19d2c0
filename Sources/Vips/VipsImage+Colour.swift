import CVips
import CVipsShim

extension VipsImage {
  /// The image as 8-bit sRGB (alpha kept), whatever it came as.
  ///
  /// An embedded ICC profile is applied (CMYK, Adobe RGB, Display P3...) and then
  /// dropped, CMYK without a profile goes through libvips's built-in CMYK profile,
  /// greyscale gains three bands, and 16-bit samples become 8-bit.
  public func toSRGB() throws(VipsError) -> VipsImage {
    var image = try withoutExtraBands()
    if image.interpretation == .srgb, image.format == .uchar, !image.hasICCProfile {
      return image
    }
    if image.hasICCProfile, let transformed = try image.iccTransformedToSRGB() {
      image = transformed
    }
    // libvips's CMYK route starts by importing through its built-in CMYK profile, a
    // transform it builds for every image: the shim's is made once per process, and
    // goes on to sRGB in the same pass.
    if image.interpretation == .cmyk, let srgb = try image.cmykToSRGBInProcess() {
      image = srgb
    }
    if image.interpretation != .srgb {
      image = try image.derive("colourspace") { input, out in
        cvips_colourspace(input, out, VIPS_INTERPRETATION_sRGB)
      }
    }
    return try image.castToUInt8().withoutICCProfile()
  }

  /// Whether ``toSRGB()`` would only apply the embedded ICC profile: 8-bit sRGB, three
  /// bands or four (alpha), with a profile.
  public var isSRGBButForICCProfile: Bool {
    hasICCProfile && format == .uchar && interpretation == .srgb && (bands == 3 || bands == 4)
  }

  /// The image as 8-bit luminance (alpha kept): one band, or two with alpha.
  public func toGreyscale() throws(VipsError) -> VipsImage {
    var image = try withoutExtraBands()
    let colourBands = image.bands - (image.hasAlpha ? 1 : 0)
    if image.hasICCProfile, colourBands > 1, let transformed = try image.iccTransformedToSRGB() {
      image = transformed
    }
    if !(colourBands == 1 && [.bw, .grey16].contains(image.interpretation)) {
      image = try image.derive("colourspace") { input, out in
        cvips_colourspace(input, out, VIPS_INTERPRETATION_B_W)
      }
    }
    return try image.castToUInt8()
  }

  /// The colour bands and the alpha after them, without the extra bands that may follow
  /// (a TIFF of grey, alpha and an unspecified sample): libvips's conversions carry such
  /// bands along after alpha, where a flatten would take the last one for alpha and a
  /// four-band style would keep the wrong one.
  func withoutExtraBands() throws(VipsError) -> VipsImage {
    let colourBands =
      switch interpretation {
      case .bw, .grey16: 1
      case .cmyk: 4
      default: 3
      }
    guard hasAlpha, bands > colourBands + 1 else { return self }
    return try extractingBands(0, count: colourBands + 1)
  }

  /// 8-bit samples: 16-bit images keep their top 8 bits, others are clamped to 0...255.
  public func castToUInt8() throws(VipsError) -> VipsImage {
    guard format != .uchar else { return self }
    let shift = format == .ushort
    let cast = try derive("cast") { input, out in
      cvips_cast(input, out, VIPS_FORMAT_UCHAR, shift ? 1 : 0)
    }
    let eightBit: VipsInterpretation? =
      switch interpretation {
      case .rgb16: VIPS_INTERPRETATION_sRGB
      case .grey16: VIPS_INTERPRETATION_B_W
      default: nil
      }
    guard let eightBit else { return cast }
    return try cast.derive("copy") { input, out in cvips_copy_interpretation(input, out, eightBit) }
  }

  /// Removes alpha by blending onto `background` (one value per colour band, 0...255).
  public func flattened(background: [Double]) throws(VipsError) -> VipsImage {
    guard hasAlpha else { return self }
    return try derive("flatten") { input, out in
      cvips_flatten(input, out, background, Int32(background.count))
    }
  }

  /// Multiplies the colour bands by alpha (as a fraction of its maximum); the result is float.
  public func premultiplied() throws(VipsError) -> VipsImage {
    try derive("premultiply") { input, out in cvips_premultiply(input, out) }
  }

  /// Divides the colour bands by alpha, undoing ``premultiplied()``; the result is float.
  public func unpremultiplied() throws(VipsError) -> VipsImage {
    try derive("unpremultiply") { input, out in cvips_unpremultiply(input, out) }
  }

  /// Adds an opaque alpha band when there is none.
  public func withAlpha() throws(VipsError) -> VipsImage {
    guard !hasAlpha else { return self }
    let opaque: Double = format == .ushort ? 65535 : 255
    return try derive("bandjoin_const") { input, out in
      cvips_bandjoin_const(input, out, [opaque], 1)
    }
  }

  /// Bands `first` to `first + count - 1`.
  public func extractingBands(_ first: Int, count: Int = 1) throws(VipsError) -> VipsImage {
    try derive("extract_band") { input, out in
      cvips_extract_band(input, out, Int32(first), Int32(count))
    }
  }

  /// This image's bands followed by `other`'s.
  public func joiningBands(_ other: VipsImage) throws(VipsError) -> VipsImage {
    try derive("bandjoin", with: [other]) { input, out in cvips_bandjoin2(input, other.pointer, out)
    }
  }

  /// The same samples read as `interpretation` (no conversion).
  public func tagged(as interpretation: Interpretation) throws(VipsError) -> VipsImage {
    let space = interpretation.vips
    return try derive("copy") { input, out in cvips_copy_interpretation(input, out, space) }
  }

  /// Samples converted to `format`, clamped to its range (no scaling).
  public func cast(to format: BandFormat) throws(VipsError) -> VipsImage {
    let target = format.vips
    return try derive("cast") { input, out in cvips_cast(input, out, target, 0) }
  }

  /// The image without a profile: once the pixels are sRGB, a profile left on them
  /// (libvips's CMYK conversion attaches the CMYK profile it used) would be applied
  /// again by the next `toSRGB()`.
  private func withoutICCProfile() throws(VipsError) -> VipsImage {
    guard hasICCProfile else { return self }
    let copy = try derive("copy") { input, out in cvips_copy(input, out) }
    _ = vips_image_remove(copy.pointer, VIPS_META_ICC_NAME)
    return copy
  }
}

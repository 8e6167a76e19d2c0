import CVipsShim

/// Pixel arithmetic, as libvips does it: results are float or int as libvips promotes
/// them (cast back with ``castToUInt8()``, or clamp with `linear(..., clampToUInt8: true)`).
extension VipsImage {
  /// a x pixel + b per band; with `clampToUInt8` the result is clamped to 0...255 and
  /// truncated (add 0.5 to `b` to round).
  public func linear(_ a: [Double], _ b: [Double], clampToUInt8: Bool = false) throws(VipsError)
    -> VipsImage
  {
    try derive("linear") { input, out in
      cvips_linear(input, out, a, b, Int32(a.count), clampToUInt8 ? 1 : 0)
    }
  }

  /// |pixel| per band.
  public func absolute() throws(VipsError) -> VipsImage {
    try derive("abs") { input, out in cvips_abs(input, out) }
  }

  /// This image plus `other`, per band.
  public func adding(_ other: VipsImage) throws(VipsError) -> VipsImage {
    try derive("add", with: [other]) { input, out in cvips_add(input, other.pointer, out) }
  }

  /// This image minus `other`, per band.
  public func subtracting(_ other: VipsImage) throws(VipsError) -> VipsImage {
    try derive("subtract", with: [other]) { input, out in cvips_subtract(input, other.pointer, out)
    }
  }

  /// This image times `other`, per band.
  public func multiplying(_ other: VipsImage) throws(VipsError) -> VipsImage {
    try derive("multiply", with: [other]) { input, out in cvips_multiply(input, other.pointer, out)
    }
  }

  /// The mean of the bands: one band.
  public func bandMean() throws(VipsError) -> VipsImage {
    try derive("bandmean") { input, out in cvips_bandmean(input, out) }
  }

  /// Each pixel to the power `exponent`.
  public func power(_ exponent: Double) throws(VipsError) -> VipsImage {
    try derive("pow_const") { input, out in cvips_pow_const(input, out, exponent) }
  }
}

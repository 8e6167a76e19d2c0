import CVipsShim

extension VipsImage {
  /// A gaussian blur of standard deviation `sigma` pixels.
  public func blurred(sigma: Double) throws(VipsError) -> VipsImage {
    guard sigma > 0, sigma.isFinite else {
      throw .invalidArgument(
        operation: "gaussblur", message: "sigma must be positive, not \(sigma)")
    }
    return try derive("gaussblur") { input, out in cvips_gaussblur(input, out, sigma) }
  }

  /// Sharpens with libvips's unsharp mask on lightness; `sigma` is the mask's radius.
  public func sharpened(sigma: Double = 0.5) throws(VipsError) -> VipsImage {
    guard sigma > 0, sigma.isFinite else {
      throw .invalidArgument(operation: "sharpen", message: "sigma must be positive, not \(sigma)")
    }
    return try derive("sharpen") { input, out in cvips_sharpen(input, out, sigma) }
  }
}

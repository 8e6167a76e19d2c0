import CVipsShim

extension VipsImage {
  /// The mean of every sample of every band; computes the pixels.
  public func average() throws(VipsError) -> Double {
    var value = 0.0
    try check("avg", cvips_avg(pointer, &value))
    return value
  }

  /// The largest sample of any band; computes the pixels.
  public func maximum() throws(VipsError) -> Double {
    var value = 0.0
    try check("max", cvips_max(pointer, &value))
    return value
  }

  /// The mean of |a - b| over every sample, in sample units (0...255 for 8-bit):
  /// how far apart two images of the same size and bands are.
  public func meanAbsoluteDifference(to other: VipsImage) throws(VipsError) -> Double {
    guard other.width == width, other.height == height, other.bands == bands else {
      throw .invalidArgument(
        operation: "difference",
        message:
          "\(width)x\(height)x\(bands) and \(other.width)x\(other.height)x\(other.bands) differ in shape"
      )
    }
    return try subtracting(other).absolute().average()
  }

  /// The largest |a - b| over every sample: the worst pixel, in sample units.
  public func maximumDifference(to other: VipsImage) throws(VipsError) -> Double {
    guard other.width == width, other.height == height, other.bands == bands else {
      throw .invalidArgument(
        operation: "difference",
        message:
          "\(width)x\(height)x\(bands) and \(other.width)x\(other.height)x\(other.bands) differ in shape"
      )
    }
    return try subtracting(other).absolute().maximum()
  }
}

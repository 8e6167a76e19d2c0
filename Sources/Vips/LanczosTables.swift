import CVipsShim

/// The lanczos3 weight tables of the in-memory resizes (Sources/CVipsShim/Resample.c):
/// 65 phases of `points` weights, kept process-wide per (points, shrink).
enum LanczosTables {
  /// The phases the tables have (libvips's VIPS_TRANSFORM_SCALE + 1).
  static let phases = 65

  /// The weights of (points, shrink), phase after phase: from the cache the resizes use,
  /// or computed afresh without it.
  static func weights(points: Int, shrink: Double, cached: Bool) -> [Double] {
    [Double](unsafeUninitializedCapacity: points * phases) { buffer, count in
      let result = cvips_lanczos3_weight_tables(
        Int32(points), shrink, cached ? 1 : 0, buffer.baseAddress!)
      count = result == 0 ? buffer.count : 0
    }
  }
}

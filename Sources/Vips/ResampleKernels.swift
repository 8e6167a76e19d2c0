import CVipsShim

/// The kernels of the in-memory resizes (Sources/CVipsShim/ResampleKernels.c): AVX2 where
/// the processor has it, the scalar loops of Resample.c otherwise, with the same bytes.
enum ResampleKernels {
  /// Whether this processor runs the AVX2 kernels (without ``scalar(_:)``).
  static var vectorKernelsAvailable: Bool { cvips_resample_has_vector_kernels() != 0 }

  /// Whether the resizes run the AVX2 kernels on the calling thread now.
  static var vectorKernelsOnThisThread: Bool { cvips_resample_uses_vector_kernels() != 0 }

  /// How many times the resizes on the calling thread chose the AVX2 kernels and the
  /// scalar loops so far: a test compares them before and after a resize to know which
  /// path it ran.
  static var choicesOnThisThread: (vector: Int, scalar: Int) {
    var vector: UInt = 0
    var scalar: UInt = 0
    cvips_resample_choices(&vector, &scalar)
    return (Int(vector), Int(scalar))
  }

  /// Runs `body` with the scalar loops on the calling thread, whatever the processor has:
  /// the fallback, tested on a machine with AVX2. Other threads keep their kernels.
  static func scalar<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
    let previous = cvips_resample_set_scalar(1)
    defer { cvips_resample_set_scalar(previous) }
    return try body()
  }
}

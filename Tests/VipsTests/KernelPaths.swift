import CVipsShim
import Testing

@testable import Vips

/// The shim's loops that run with AVX2 where the processor has it and as scalar loops
/// otherwise (the resample kernels, the colour transforms, the enlargement): a test
/// runs its check on either path and knows that path really ran.
enum KernelPaths {
  /// Runs `check` on the scalar loops (`scalar`) or the default ones, and expects the rows
  /// it transformed to have counted that path (ResampleKernels.choicesOnThisThread) and,
  /// on the default path, the vector loops to have done work (cvips_resample_vector_work:
  /// a loop chosen may still leave every pixel to the scalar one): the vector loops must
  /// really have run where the processor has AVX2, or a test's two arguments compare the
  /// scalar loops twice.
  static func run(scalar: Bool, _ check: () throws -> Void) throws {
    let before = ResampleKernels.choicesOnThisThread
    let workBefore = cvips_resample_vector_work()
    if scalar {
      try ResampleKernels.scalar { try check() }
    } else {
      try check()
    }
    let after = ResampleKernels.choicesOnThisThread
    let work = cvips_resample_vector_work() - workBefore
    let (vector, scalarRows) = (after.vector - before.vector, after.scalar - before.scalar)
    if scalar || !ResampleKernels.vectorKernelsAvailable {
      #expect(
        vector == 0 && scalarRows > 0 && work == 0,
        "scalar \(scalar): \(vector) vector rows, \(work) units of vector work")
    } else {
      #expect(vector > 0 && scalarRows == 0 && work > 0, "\(scalarRows) scalar rows, \(work) units")
    }
  }
}

import Foundation

/// A step that libvips cannot be asked to stop, run on a thread of its own and waited for
/// at most a time limit: the steps before an image exists (finding the loader that reads
/// the bytes, which sniffs them; reading the header), where libvips's kill switch has no
/// image to kill.
///
/// When the limit passes first the caller gets ``VipsError/timedOut(source:seconds:)``
/// and goes on; the worker is abandoned, not stopped (nothing can stop a thread inside
/// libvips safely). What an abandoned worker still holds until libvips returns, if it
/// ever does: its thread (and stack), a copy of the input's bytes, what libvips allocated
/// for it, and the CPU time it spins on (libvips 8.14's SVG sniff loops for ever on some
/// gzip data, see ``InputCheck``). It holds no lock of this library and no slot, worker
/// or table of the cache: the step runs before any of those are involved, and its result,
/// when it comes, is dropped.
enum AbandonableWorker {
  /// Runs `body` on a new thread and returns its result, or throws
  /// ``VipsError/timedOut(source:seconds:)`` once `seconds` have passed without one
  /// (``Vips/withTimeLimit(_:source:timedOut:_:)`` names its whole limit instead).
  static func run<T: Sendable>(
    within seconds: Double, source: String,
    _ body: @escaping @Sendable () throws(VipsError) -> T
  ) throws(VipsError) -> T {
    let handoff = Handoff<T>()
    let thread = Thread {
      let result = Result { () throws(VipsError) -> T in try body() }
      handoff.finish(result)
    }
    // libvips's loaders (libjpeg, libpng, libtiff) expect a main thread's stack.
    thread.stackSize = 8 << 20
    thread.start()
    guard let result = handoff.wait(seconds: seconds) else {
      throw .timedOut(source: source, seconds: seconds)
    }
    return try result.get()
  }

  /// The result of one worker, written once by the worker and read by the caller only
  /// after the semaphore says it is there.
  private final class Handoff<T: Sendable>: @unchecked Sendable {
    // Safety of @unchecked Sendable: `result` is written once, before `finished` is
    // signalled, and read only after a wait on `finished` succeeded.
    private let finished = DispatchSemaphore(value: 0)
    private var result: Result<T, VipsError>?

    func finish(_ result: Result<T, VipsError>) {
      self.result = result
      finished.signal()
    }

    func wait(seconds: Double) -> Result<T, VipsError>? {
      // A millisecond past the limit, so that the limit has passed when this returns.
      let timeout = DispatchTime.now() + max(0, seconds) + 0.001
      guard finished.wait(timeout: timeout) == .success else { return nil }
      return result
    }
  }
}

extension Vips {
  /// `open` (a step before an image exists) on an ``AbandonableWorker`` when this thread
  /// has a time limit (``withTimeLimit(_:source:timedOut:_:)``), else on this thread.
  static func openBounded<T: Sendable>(
    source: String, _ open: @escaping @Sendable () throws(VipsError) -> T
  ) throws(VipsError) -> T {
    guard let left = timeLeftOnThisThread else { return try open() }
    return try AbandonableWorker.run(within: left, source: source, open)
  }
}

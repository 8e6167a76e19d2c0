import Foundation
import Locking

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
///
/// So that abandoned workers cannot take every core, at most ``limit`` of them may be
/// outstanding (abandoned and still inside libvips) at a time: past it, a step that needs
/// a worker is not started and fails at once with
/// ``VipsError/tooManyAbandonedWorkers(source:outstanding:)``. An abandoned worker that
/// returns gives its place back.
struct AbandonableWorker: Sendable {
  /// The most abandoned workers outstanding at a time, process-wide.
  static let limit = 4

  /// The workers of this process (``Vips/openBounded(source:_:)``'s).
  static let shared = AbandonableWorker(limit: limit)

  /// How many workers this one lets be outstanding.
  let capacity: Int
  /// The threads its steps run on.
  let threads: ParkedThreads
  private let abandoned = Lock(0)

  init(limit: Int, threads: ParkedThreads = .shared) {
    capacity = limit
    self.threads = threads
  }

  /// How many workers are abandoned and still running.
  var outstanding: Int { abandoned.withLock { $0 } }

  /// Runs `body` on a thread of its own (a parked one, ``ParkedThreads``, or a new one)
  /// and returns its result, or throws
  /// ``VipsError/timedOut(source:seconds:)`` once `seconds` have passed without one
  /// (``Vips/withTimeLimit(_:source:timedOut:_:)`` names its whole limit instead), or
  /// ``VipsError/tooManyAbandonedWorkers(source:outstanding:)`` without starting it when
  /// ``capacity`` workers are outstanding already.
  func run<T: Sendable>(
    within seconds: Double, source: String,
    _ body: @escaping @Sendable () throws(VipsError) -> T
  ) throws(VipsError) -> T {
    let count = outstanding
    guard count < capacity else {
      throw .tooManyAbandonedWorkers(source: source, outstanding: count)
    }
    let handoff = Handoff<T>(abandoned: abandoned)
    // On a parked thread when one waits (ParkedThreads: 8 MiB of stack, as libvips's
    // loaders expect of a main thread), else a new one.
    threads.run {
      let result = Result { () throws(VipsError) -> T in try body() }
      handoff.finish(result)
    }
    guard let result = handoff.wait(seconds: seconds) else {
      throw .timedOut(source: source, seconds: seconds)
    }
    return try result.get()
  }

  /// The result of one worker, handed over once: to the caller waiting, or dropped when
  /// the caller gave up first (then the worker counts as outstanding until it returns).
  private final class Handoff<T: Sendable>: Sendable {
    private enum State {
      case running
      case finished(Result<T, VipsError>)
      case abandoned
    }
    private let finished = DispatchSemaphore(value: 0)
    private let state = Lock(State.running)
    private let abandoned: Lock<Int>

    init(abandoned: Lock<Int>) { self.abandoned = abandoned }

    func finish(_ result: Result<T, VipsError>) {
      let wasAbandoned = state.withLock { state in
        if case .abandoned = state { return true }
        state = .finished(result)
        return false
      }
      if wasAbandoned {
        abandoned.withLock { $0 -= 1 }
      } else {
        finished.signal()
      }
    }

    func wait(seconds: Double) -> Result<T, VipsError>? {
      // A millisecond past the limit, so that the limit has passed when this returns.
      let timeout = DispatchTime.now() + max(0, seconds) + 0.001
      _ = finished.wait(timeout: timeout)
      // Abandoned under the lock, and counted before the lock goes: a worker finishing
      // now sees it and gives the place back after this took it.
      return abandoned.withLock { count in
        state.withLock { state -> Result<T, VipsError>? in
          if case .finished(let result) = state { return result }
          state = .abandoned
          count += 1
          return nil
        }
      }
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
    return try AbandonableWorker.shared.run(within: left, source: source, open)
  }
}

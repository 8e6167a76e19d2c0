import Foundation
import Locking

/// A task executor with a thread of its own for tests that compute for seconds on end
/// (every 8-bit colour through a profile, every kernel on every photo): their work runs
/// there, one job at a time, and leaves Swift's cooperative threads (two here) to the rest
/// of a parallel run. On those threads they kept the run's async tests (HTTP clients, web
/// servers, fills) waiting minutes for a thread, past their patience.
///
/// A test runs its body there with `try await ComputeExecutor.run { ... }`. The body runs in the calling task (only on another thread), so `#expect` inside it is
/// the test's as anywhere else.
public final class ComputeExecutor: TaskExecutor {
  /// The one executor the tests share.
  public static let shared = ComputeExecutor()

  private let jobs = Lock<[UnownedJob]>([])
  private let waiting = DispatchSemaphore(value: 0)

  private init() {
    let thread = Thread { [self] in serve() }
    thread.name = "tests' compute executor"
    thread.start()
  }

  /// Runs `body` on the shared executor's thread, in the calling task.
  public static func run<Value>(_ body: () throws -> Value) async throws -> Value {
    try await withTaskExecutorPreference(shared) { try body() }
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    jobs.withLock { $0.append(job) }
    waiting.signal()
  }

  private func serve() {
    while true {
      waiting.wait()
      let job = jobs.withLock { $0.removeFirst() }
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}

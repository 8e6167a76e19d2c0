import Foundation
import Locking

/// A task executor with a thread of its own, for tests whose tasks must go on while the
/// rest of a parallel run blocks Swift's cooperative threads (two here) for minutes:
/// `withTaskExecutorPreference(TestExecutor.shared) { ... }` runs the body and its child
/// tasks here.
final class TestExecutor: TaskExecutor {
  static let shared = TestExecutor()

  private let jobs = Lock<[UnownedJob]>([])
  private let waiting = DispatchSemaphore(value: 0)

  private init() {
    let thread = Thread { [self] in run() }
    thread.name = "WebLoadingTests executor"
    thread.start()
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    jobs.withLock { $0.append(job) }
    waiting.signal()
  }

  private func run() {
    while true {
      waiting.wait()
      let job = jobs.withLock { $0.removeFirst() }
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}

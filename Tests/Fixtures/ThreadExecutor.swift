import Foundation
import Locking

/// A task executor with a thread of its own, running its jobs one at a time: for tests
/// whose work must go on while the rest of a parallel run holds Swift's cooperative
/// threads (two here), or whose long computing must leave those threads to the others.
/// Each instance has its own thread: `withTaskExecutorPreference(executor) { ... }` runs
/// the body and its child tasks there, in the calling task (so `#expect` inside is the
/// test's as anywhere else).
public final class ThreadExecutor: TaskExecutor {
  private let jobs = Lock<[UnownedJob]>([])
  private let waiting = DispatchSemaphore(value: 0)

  /// An executor whose thread is called `name`.
  public init(name: String) {
    let thread = Thread { [self] in serve() }
    thread.name = name
    thread.start()
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

import Foundation
import Locking
import Testing

@testable import Vips

/// The threads of abandonable workers park between steps instead of ending, up to a
/// number, and end when none comes.
@Suite("Parked worker threads")
struct ParkedThreadsTests {
  /// The kernel's id of the calling thread (from /proc/thread-self, a link to
  /// `PID/task/TID`): unlike a `pthread_t`, never the same for a new thread while the
  /// process runs a test this short.
  static func threadID() -> Int32 {
    var link = [CChar](repeating: 0, count: 64)
    let count = readlink("/proc/thread-self", &link, link.count - 1)
    guard count > 0 else { return -1 }
    let path = String(decoding: link[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return Int32(path.split(separator: "/").last ?? "") ?? -1
  }

  /// Runs `step` on `threads` and waits for it, returning the id of the thread it ran on.
  static func runAndWait(_ threads: ParkedThreads, _ step: @escaping @Sendable () -> Void = {})
    -> Int32
  {
    let done = DispatchSemaphore(value: 0)
    let ran = Lock<Int32>(0)
    threads.run {
      step()
      ran.withLock { $0 = threadID() }
      done.signal()
    }
    done.wait()
    return ran.withLock { $0 }
  }

  /// Waits up to 10 s for `condition`.
  static func eventually(_ condition: () -> Bool) -> Bool {
    let start = ContinuousClock.now
    while !condition() {
      if ContinuousClock.now - start > .seconds(10) { return false }
      usleep(1000)
    }
    return true
  }

  @Test("a step's thread parks and runs the next step, not the caller's and not a new one")
  func theNextStepRunsOnTheParkedThread() {
    let threads = ParkedThreads(keeping: 2)
    let first = Self.runAndWait(threads)
    #expect(first != Self.threadID())
    #expect(Self.eventually { threads.parkedCount == 1 })
    let second = Self.runAndWait(threads)
    #expect(second == first)
    #expect(Self.eventually { threads.parkedCount == 1 })
  }

  @Test("past `keeping` parked threads, a thread whose step returns ends")
  func atMostKeepingPark() {
    let threads = ParkedThreads(keeping: 1)
    let release = DispatchSemaphore(value: 0)
    let started = DispatchSemaphore(value: 0)
    let ids = Lock<Set<Int32>>([])
    let finished = DispatchSemaphore(value: 0)
    // Three steps at once, each blocked until released: three threads.
    for _ in 0..<3 {
      threads.run {
        ids.withLock { _ = $0.insert(Self.threadID()) }
        started.signal()
        release.wait()
        finished.signal()
      }
    }
    for _ in 0..<3 { started.wait() }
    #expect(ids.withLock { $0.count } == 3)
    #expect(threads.parkedCount == 0)
    for _ in 0..<3 { release.signal() }
    for _ in 0..<3 { finished.wait() }
    #expect(Self.eventually { threads.parkedCount == 1 })
    // Settled: no more than one stays parked.
    usleep(50_000)
    #expect(threads.parkedCount == 1)
  }

  @Test("a parked thread that nothing wakes ends after its idle time")
  func idleThreadsEnd() {
    let threads = ParkedThreads(keeping: 2, idleSeconds: 0.05)
    _ = Self.runAndWait(threads)
    #expect(Self.eventually { threads.parkedCount == 0 })
    // And the next step gets a thread all the same.
    let id = Self.runAndWait(threads)
    #expect(id != Self.threadID() && id != 0)
  }

  @Test("the worker's probe steps reuse a parked thread (a render starts no thread a photo)")
  func abandonableWorkersUseParkedThreads() throws {
    #expect(AbandonableWorker.shared.threads === ParkedThreads.shared)
    let threads = ParkedThreads(keeping: 2)
    let workers = AbandonableWorker(limit: 2, threads: threads)
    let first = try workers.run(within: 5, source: "a.jpg") { () throws(VipsError) in
      Self.threadID()
    }
    #expect(Self.eventually { threads.parkedCount == 1 })
    let second = try workers.run(within: 5, source: "b.jpg") { () throws(VipsError) in
      Self.threadID()
    }
    #expect(first != Self.threadID() && second != Self.threadID())
    #expect(first == second)
  }
}

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

  /// Whether `semaphore` was signalled within 10 s (a step that never comes fails the
  /// test instead of hanging it).
  static func waited(_ semaphore: DispatchSemaphore) -> Bool {
    semaphore.wait(timeout: .now() + 10) == .success
  }

  /// Runs `step` on `threads` and waits for it, returning the id of the thread it ran on
  /// (-2 when it did not finish within 10 s).
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
    guard waited(done) else { return -2 }
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
    #expect(first > 0 && first != Self.threadID())
    #expect(Self.eventually { threads.parkedCount == 1 })
    let second = Self.runAndWait(threads)
    #expect(second == first)
    #expect(Self.eventually { threads.parkedCount == 1 })
    #expect(threads.endedCount == 0)
  }

  @Test("past `keeping` parked threads, a thread whose step returns ends")
  func atMostKeepingPark() throws {
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
    for _ in 0..<3 { try #require(Self.waited(started)) }
    #expect(ids.withLock { $0.count } == 3)
    #expect(threads.parkedCount == 0)
    for _ in 0..<3 { release.signal() }
    for _ in 0..<3 { try #require(Self.waited(finished)) }
    // Every thread has parked or ended: one parked, the two past `keeping` ended.
    #expect(Self.eventually { threads.parkedCount + threads.endedCount == 3 })
    #expect(threads.parkedCount == 1)
    #expect(threads.endedCount == 2)
  }

  @Test("a parked thread that nothing wakes ends after its idle time")
  func idleThreadsEnd() {
    let threads = ParkedThreads(keeping: 2, idleSeconds: 0.3)
    let first = Self.runAndWait(threads)
    #expect(first > 0)
    #expect(Self.eventually { threads.parkedCount == 1 })
    #expect(Self.eventually { threads.parkedCount == 0 && threads.endedCount == 1 })
    // The next step gets a new thread.
    let next = Self.runAndWait(threads)
    #expect(next > 0 && next != first && next != Self.threadID())
  }

  /// The race in a parked thread's end: its idle time passing just as a step is handed to
  /// it (taken from the parked, not yet woken: a window `handoffPause` widens to 300 µs
  /// of a 500 µs idle time). Steps spaced about the idle time apart: each runs once, and
  /// every one finishes.
  @Test("steps handed over as parked threads time out each run exactly once")
  func stepsRaceIdleEndsAndEachRunsOnce() {
    let threads = ParkedThreads(keeping: 2, idleSeconds: 0.0005, handoffPause: 300)
    let runs = Lock<[Int]>(Array(repeating: 0, count: 400))
    let done = DispatchSemaphore(value: 0)
    var state: UInt32 = 7
    for index in 0..<400 {
      threads.run {
        runs.withLock { $0[index] += 1 }
        done.signal()
      }
      state = state &* 1_103_515_245 &+ 12345
      usleep(UInt32(state >> 16) % 1000)
    }
    var finished = 0
    while finished < 400, Self.waited(done) { finished += 1 }
    #expect(finished == 400)
    #expect(runs.withLock { $0 }.allSatisfy { $0 == 1 })
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

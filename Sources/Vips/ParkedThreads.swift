import Foundation
import Locking

/// Threads that wait, parked, for the next ``AbandonableWorker`` step instead of ending
/// after theirs: a render probes every photo on a worker, and a new thread for each (its
/// start, its 8 MiB stack's first pages, its end) cost about 90 µs against about 10 µs to
/// wake a parked one.
///
/// A thread whose step returns parks itself while fewer than ``keeping`` are parked, and
/// ends otherwise; a parked thread that nothing wakes for ``idleSeconds`` ends too. A step
/// that never returns (a sniff libvips loops in) keeps its thread, as before: it is simply
/// never parked again.
final class ParkedThreads: Sendable {
  /// The threads of this process's workers: as many parked as probes may run at once (a
  /// render's workers, one per core) or as workers may be outstanding, whichever is more.
  static let shared = ParkedThreads(
    keeping: max(AbandonableWorker.limit, ProcessInfo.processInfo.activeProcessorCount))

  /// The most threads parked at a time.
  let keeping: Int
  /// How long a parked thread waits for a step before it ends.
  let idleSeconds: Double

  /// One thread's slot: the step it is handed, and the semaphore that wakes it.
  private final class Slot: Sendable {
    let wake = DispatchSemaphore(value: 0)
    let step = Lock<(@Sendable () -> Void)?>(nil)
  }

  private let parked = Lock<[Slot]>([])
  private let ended = Lock(0)

  /// Microseconds `run` waits between taking a parked thread and waking it: 0, except in
  /// the test that widens that window so that idle ends race it.
  let handoffPause: UInt32

  init(keeping: Int, idleSeconds: Double = 30, handoffPause: UInt32 = 0) {
    self.keeping = keeping
    self.idleSeconds = idleSeconds
    self.handoffPause = handoffPause
  }

  /// How many threads are parked now.
  var parkedCount: Int { parked.withLock { $0.count } }

  /// How many threads have ended so far (past ``keeping``, or idle).
  var endedCount: Int { ended.withLock { $0 } }

  /// Runs `step` on a parked thread, or on a new one (8 MiB of stack, as libvips's
  /// loaders expect of a main thread) when none is parked. Returns at once.
  func run(_ step: @escaping @Sendable () -> Void) {
    if let slot = parked.withLock({ $0.popLast() }) {
      if handoffPause > 0 { usleep(handoffPause) }
      slot.step.withLock { $0 = step }
      slot.wake.signal()
      return
    }
    let slot = Slot()
    slot.step.withLock { $0 = step }
    let thread = Thread { [self] in serve(slot) }
    thread.stackSize = 8 << 20
    thread.start()
  }

  /// A thread's life: its step, then parked for the next until there are enough parked
  /// or none comes.
  private func serve(_ slot: Slot) {
    defer { ended.withLock { $0 += 1 } }
    while true {
      if let step = slot.step.withLock({ step in
        defer { step = nil }; return step
      }) {
        step()
      }
      let parks = parked.withLock { parked -> Bool in
        guard parked.count < keeping else { return false }
        parked.append(slot)
        return true
      }
      guard parks else { return }
      if slot.wake.wait(timeout: .now() + idleSeconds) == .timedOut {
        // Unparked here, unless `run` took this slot just now: then its step is coming.
        let unparked = parked.withLock { parked -> Bool in
          guard let index = parked.firstIndex(where: { $0 === slot }) else { return false }
          parked.remove(at: index)
          return true
        }
        if unparked { return }
        slot.wake.wait()
      }
    }
  }
}

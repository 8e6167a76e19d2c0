import Foundation
import Locking

/// The threads of one cache that fills run on: decoding, pipelines, rasterising and
/// table writes are synchronous, CPU-bound work, and on Swift's cooperative pool (one
/// thread per core) they would starve every other task of the app. These are threads
/// of their own, as Nuke's and Kingfisher's queues are, taking queued work highest
/// priority first, in submission order within a priority.
final class FillWorkers: Sendable {
  /// Names one piece of queued work, to raise its priority or withdraw it.
  struct Ticket: Hashable, Sendable { let number: UInt64 }

  private struct Job {
    let ticket: Ticket
    var priority: FillPriority
    let work: @Sendable () -> Void
  }

  private struct Queue {
    var jobs: [Job] = []
    var issued: UInt64 = 0
    var stopping = false
  }

  let count: Int
  private let queue = Lock(Queue())
  /// Signalled once per job submitted, and once per thread when stopping.
  private let available = DispatchSemaphore(value: 0)

  /// Starts `count` (at least one) threads named `name 1`, `name 2`... (Linux keeps 15
  /// bytes of a thread's name).
  init(count: Int, name: String) {
    self.count = max(1, count)
    for index in 1...self.count {
      let thread = Thread { [self] in
        Self.nameThisThread("\(name) \(index)")
        serve()
      }
      // libvips and the pipelines recurse little, but a decode may be deep in a codec.
      thread.stackSize = 8 << 20
      thread.start()
    }
  }

  /// Names the calling thread for debuggers, `top -H` and crash logs. On Linux a new
  /// thread takes its creator's name (a cooperative thread's, often), and Foundation's
  /// `Thread.name` does not always reach the kernel, so the name is written there.
  private static func nameThisThread(_ name: String) {
    #if os(Linux)
      try? name.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
    #endif
    Thread.current.name = name
  }

  /// Queues `work`; nil when the workers are stopping (the caller runs it, or not).
  func submit(priority: FillPriority, _ work: @escaping @Sendable () -> Void) -> Ticket? {
    let ticket = queue.withLock { queue -> Ticket? in
      guard !queue.stopping else { return nil }
      queue.issued += 1
      let ticket = Ticket(number: queue.issued)
      queue.jobs.append(Job(ticket: ticket, priority: priority, work: work))
      return ticket
    }
    if ticket != nil { available.signal() }
    return ticket
  }

  /// Raises queued work to `priority` (never lowers it); does nothing once it runs.
  func raise(_ ticket: Ticket, to priority: FillPriority) {
    queue.withLock { queue in
      guard let index = queue.jobs.firstIndex(where: { $0.ticket == ticket }) else { return }
      queue.jobs[index].priority = max(queue.jobs[index].priority, priority)
    }
  }

  /// Takes queued work out of the queue and returns it, or nil once it has started.
  func withdraw(_ ticket: Ticket) -> (@Sendable () -> Void)? {
    queue.withLock { queue in
      guard let index = queue.jobs.firstIndex(where: { $0.ticket == ticket }) else { return nil }
      return queue.jobs.remove(at: index).work
    }
  }

  /// Lets the threads end once the queue is empty; later submissions are refused.
  func stop() {
    let first = queue.withLock { queue in
      defer { queue.stopping = true }
      return !queue.stopping
    }
    guard first else { return }
    for _ in 0..<count { available.signal() }
  }

  private func serve() {
    while true {
      available.wait()
      let next = queue.withLock { queue -> Job?? in
        guard
          let index = queue.jobs.indices.max(by: { Self.runsAfter(queue.jobs[$0], queue.jobs[$1]) })
        else { return queue.stopping ? .some(nil) : nil }
        return queue.jobs.remove(at: index)
      }
      switch next {
      case .some(.some(let job)): job.work()
      case .some(.none): return  // stopping, nothing left
      case .none: continue  // withdrawn before this thread came to it
      }
    }
  }

  /// Whether `a` runs after `b`: lower priority, or the same and submitted later.
  private static func runsAfter(_ a: Job, _ b: Job) -> Bool {
    a.priority != b.priority ? a.priority < b.priority : a.ticket.number > b.ticket.number
  }
}

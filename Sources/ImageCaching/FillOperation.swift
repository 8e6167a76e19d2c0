import Foundation
import Synchronization

/// One fill of an entity for some formats of a family, and everyone waiting for it.
/// All its state but `cancelled` is changed under the cache's lock.
final class FillOperation: @unchecked Sendable {
  struct Key: Hashable {
    var entityID: String
    var sourceVersion: String
    var formats: [String]
  }

  let key: Key
  var task: Task<Void, Never>?
  /// Set when its waiters have their result; its task may still be returning.
  var finished = false
  /// The requests waiting for it. They are told only that it ended (or how it failed),
  /// and look up the entries they want once they run: a `Bitmap` handed to a waiter
  /// that has not run yet would pin its slot for as long as the waiter waits for a
  /// thread, and enough of them leave a table no slot to evict.
  var waiters: [UUID: FillWaiter] = [:]
  /// The newest progress its source's load reported, and how many reports came so far:
  /// a request that joins is given it at once.
  var progress: (latest: LoadProgress, sequence: UInt64)?
  /// The highest priority any of its requests asked for.
  var priority: FillPriority
  /// Its place in the workers' queue, once it is there.
  var ticket: FillWorkers.Ticket?
  /// Set when it is cancelled (or its cache closed): it stops at its next step.
  let cancelled = Atomic(false)

  init(key: Key, priority: FillPriority) {
    self.key = key
    self.priority = priority
  }

  var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
}

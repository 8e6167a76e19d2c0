import Foundation
import ImageTables
import Synchronization

/// One fill of an entity for some formats of a family, and everyone waiting for it.
/// All its state but `cancelled` is changed under the cache's lock.
final class FillOperation: @unchecked Sendable {
  struct Key: Hashable {
    var entityID: String
    var sourceVersion: String
    var formats: [String]
  }

  /// One request waiting for the fill, and the formats whose bitmaps it wants back
  /// (a prefetch wants none, so that nothing it fills stays pinned for it).
  struct Waiter {
    var continuation: CheckedContinuation<[String: Bitmap], any Error>
    var wants: Set<String>
  }

  let key: Key
  var task: Task<Void, Never>?
  /// Set when its waiters have their result; its task may still be returning.
  var finished = false
  var waiters: [UUID: Waiter] = [:]
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

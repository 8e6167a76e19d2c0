import Foundation
import Locking

/// The streams handed out by an `events()` method, each kept until its consumer ends.
///
/// A subscriber is removed when its stream terminates: its consuming task is cancelled,
/// its loop breaks, or the stream is dropped without being read (`AsyncStream`'s
/// `onTermination`, which runs synchronously on the thread that ends it). The removal
/// takes the lock, not an actor, so it is done by the time the ending call returns.
/// When the owner goes, every stream still open finishes.
final class EventSubscribers<Event: Sendable>: Sendable {
  private let subscribers = Lock([UUID: AsyncStream<Event>.Continuation]())

  /// The subscribers whose streams have not terminated (for tests).
  var count: Int { subscribers.withLock { $0.count } }

  /// A new stream of the events sent from now on.
  func stream() -> AsyncStream<Event> {
    let (stream, continuation) = AsyncStream<Event>.makeStream()
    let id = UUID()
    subscribers.withLock { $0[id] = continuation }
    // Set before the stream is returned: no consumer can end it before this is in place.
    continuation.onTermination = { [weak self] _ in
      _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
    }
    return stream
  }

  /// Sends `event` to every subscriber (outside the lock: a yield may resume a consumer).
  func send(_ event: Event) {
    for subscriber in subscribers.withLock({ Array($0.values) }) { subscriber.yield(event) }
  }

  deinit {
    for subscriber in subscribers.withLock({ Array($0.values) }) { subscriber.finish() }
  }
}

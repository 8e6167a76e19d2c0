import Locking

/// Keeps what a callback was given, in order, and lets a test wait until a number of
/// calls came, with no polling and no timing.
///
/// ```swift
/// let seen = Recorder<Double>()
/// // in the callback: seen.record(fraction)
/// await seen.waitUntil(count: 2)
/// #expect(seen.values == [0.5, 1])
/// ```
public final class Recorder<Value: Sendable>: Sendable {
  private struct State {
    var values: [Value] = []
    var waiting: [(id: Int, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    var nextID = 0
  }
  private let state = Lock(State())

  public init() {}

  /// Everything recorded so far, in order.
  public var values: [Value] { state.withLock { $0.values } }

  public func record(_ value: Value) {
    let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.values.append(value)
      let count = state.values.count
      defer { state.waiting.removeAll { $0.count <= count } }
      return state.waiting.filter { $0.count <= count }.map(\.continuation)
    }
    for waiter in ready { waiter.resume() }
  }

  /// Returns once `count` values have been recorded, or after `patience` whatever was:
  /// a test whose calls never come then fails on what it expected, not by hanging.
  public func waitUntil(count: Int, patience: Duration = .seconds(30)) async {
    await withCheckedContinuation { continuation in
      let id = state.withLock { state -> Int? in
        if state.values.count >= count { return nil }
        state.nextID += 1
        state.waiting.append((state.nextID, count, continuation))
        return state.nextID
      }
      guard let id else { return continuation.resume() }
      Task {
        try? await Task.sleep(for: patience)
        let expired = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
          guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
          return state.waiting.remove(at: index).continuation
        }
        expired?.resume()
      }
    }
  }
}

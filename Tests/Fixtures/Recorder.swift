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
    var waiting: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
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

  /// Returns once `count` values have been recorded.
  public func waitUntil(count: Int) async {
    await withCheckedContinuation { continuation in
      let now = state.withLock { state -> Bool in
        if state.values.count >= count { return true }
        state.waiting.append((count, continuation))
        return false
      }
      if now { continuation.resume() }
    }
  }
}

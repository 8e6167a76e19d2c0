import Locking

/// One request waiting for a fill: its continuation and its progress handler, with the
/// order of what it is told kept.
///
/// Progress goes to the handler outside the cache's lock, one call at a time, newest
/// last (a report older than one already given is dropped; reports that come while the
/// handler runs are folded into the newest). The request is told that it ended only
/// once the handler has returned, and the handler is never called after that: a
/// ``finish(_:)`` that comes while the handler runs (on another thread, or from the
/// handler itself, as when it cancels its own request) is kept and done by the call
/// that is delivering, when the handler returns.
final class FillWaiter: Sendable {
  typealias Outcome = Result<Void, any Error>

  private struct State {
    var continuation: CheckedContinuation<Void, any Error>?
    /// The sequence number of the newest report given or pending.
    var newest: UInt64 = 0
    var pending: LoadProgress?
    var delivering = false
    /// A finish that came while the handler ran.
    var outcome: Outcome?
  }

  private let handler: (@Sendable (LoadProgress) -> Void)?
  private let state: Lock<State>

  init(
    _ continuation: CheckedContinuation<Void, any Error>,
    progress handler: (@Sendable (LoadProgress) -> Void)?
  ) {
    self.handler = handler
    state = Lock(State(continuation: continuation))
  }

  /// Gives the handler `progress`, the fill's report number `sequence` (1, 2...), unless
  /// a later one was given already or the request has ended.
  func report(_ progress: LoadProgress, sequence: UInt64) {
    guard let handler else { return }
    let deliver = state.withLock { state -> Bool in
      guard state.continuation != nil, state.outcome == nil, sequence > state.newest else {
        return false
      }
      state.newest = sequence
      if state.delivering {
        state.pending = progress
        return false
      }
      state.delivering = true
      return true
    }
    guard deliver else { return }
    var next: LoadProgress? = progress
    while let progress = next {
      handler(progress)
      let ending = state.withLock { state -> (CheckedContinuation<Void, any Error>, Outcome)? in
        if let outcome = state.outcome, let continuation = state.continuation {
          state.continuation = nil
          state.delivering = false
          state.pending = nil
          next = nil
          return (continuation, outcome)
        }
        next = state.pending
        state.pending = nil
        if next == nil { state.delivering = false }
        return nil
      }
      if let (continuation, outcome) = ending { continuation.resume(with: outcome) }
    }
  }

  /// Ends the request with `outcome`: at once, or, while the handler runs, when it returns.
  /// Only the first call counts.
  func finish(_ outcome: Outcome) {
    let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
      guard state.outcome == nil, state.continuation != nil else { return nil }
      if state.delivering {
        state.outcome = outcome
        return nil
      }
      defer { state.continuation = nil }
      return state.continuation
    }
    continuation?.resume(with: outcome)
  }
}

import Locking

/// Holds every caller of ``pass()`` until ``open()``, so a test can act while work is
/// known to be under way without guessing at times; it also tells when work that passed
/// it has returned, and whether its task was cancelled by then.
///
/// ```swift
/// let gate = Gate()
/// // in the work: await gate.pass(); ...; gate.returned()
/// await gate.waitUntilArrived()  // the work is held now
/// gate.open()
/// await gate.waitUntilReturned()
/// ```
public final class Gate: Sendable {
  private struct State {
    var isOpen = false
    var arrived = 0
    var returned = 0
    var cancelledAfterPassing = 0
    var held: [CheckedContinuation<Void, Never>] = []
    var waitingForArrival: [CheckedContinuation<Void, Never>] = []
    var waitingForReturn: [CheckedContinuation<Void, Never>] = []
  }
  private let state = Lock(State())

  public init() {}

  /// How many callers reached the gate.
  public var arrived: Int { state.withLock { $0.arrived } }

  /// How many callers found their task cancelled once past the gate.
  public var cancelledAfterPassing: Int { state.withLock { $0.cancelledAfterPassing } }

  /// Returns once the gate is open; counts the caller as arrived.
  public func pass() async {
    await withCheckedContinuation { continuation in
      let (pass, waiters) = state.withLock { state in
        state.arrived += 1
        defer { state.waitingForArrival = [] }
        if !state.isOpen { state.held.append(continuation) }
        return (state.isOpen, state.waitingForArrival)
      }
      for waiter in waiters { waiter.resume() }
      if pass { continuation.resume() }
    }
  }

  /// Tells the gate that work past it returned, noting whether its task was cancelled.
  public func returned() {
    let cancelled = Task.isCancelled
    let waiters = state.withLock { state in
      state.returned += 1
      if cancelled { state.cancelledAfterPassing += 1 }
      defer { state.waitingForReturn = [] }
      return state.waitingForReturn
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Returns once a caller has reached the gate.
  public func waitUntilArrived() async {
    await wait {
      $0.arrived > 0
    } enqueue: {
      $0.waitingForArrival.append($1)
    }
  }

  /// Returns once work past the gate has returned.
  public func waitUntilReturned() async {
    await wait {
      $0.returned > 0
    } enqueue: {
      $0.waitingForReturn.append($1)
    }
  }

  /// Lets every held caller, and every later one, go on.
  public func open() {
    let held = state.withLock { state in
      state.isOpen = true
      defer { state.held = [] }
      return state.held
    }
    for continuation in held { continuation.resume() }
  }

  private func wait(
    until done: (State) -> Bool,
    enqueue: (inout State, CheckedContinuation<Void, Never>) -> Void
  ) async {
    await withCheckedContinuation { continuation in
      let now = state.withLock { state -> Bool in
        if done(state) { return true }
        enqueue(&state, continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }
}

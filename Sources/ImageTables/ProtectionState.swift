import Synchronization

/// Whether protected data may be read now: the lock state a cache shares with its tables.
///
/// A device (or a service) locks when its user steps away and unlocks on their return;
/// tables of `.complete` formats are unavailable while locked, and tables of
/// `.completeUntilFirstUserAuthentication` formats until the first unlock.
///
/// ```swift
/// let protection = ProtectionState(locked: true)
/// // ... the user signs in:
/// protection.unlock()
/// ```
public final class ProtectionState: Sendable {
  private struct State {
    var locked: Bool
    var unlockedOnce: Bool
  }
  private let state: TableLock<State>

  /// A state that starts locked (never yet unlocked) or unlocked.
  public init(locked: Bool = false) {
    state = TableLock(State(locked: locked, unlockedOnce: !locked))
  }

  /// The state of a process with no notion of locking: always unlocked.
  public static let alwaysUnlocked = ProtectionState()

  public func lock() { state.withLock { $0.locked = true } }

  public func unlock() {
    state.withLock {
      $0.locked = false
      $0.unlockedOnce = true
    }
  }

  public var isLocked: Bool { state.withLock { $0.locked } }

  /// Whether a table of `mode` may be read and written now.
  public func allows(_ mode: ProtectionMode) -> Bool {
    // Unprotected formats never need the lock: this is on every table hit.
    guard mode != .none else { return true }
    return state.withLock { state in
      switch mode {
      case .none: true
      case .complete: !state.locked
      case .completeUntilFirstUserAuthentication: state.unlockedOnce
      }
    }
  }
}

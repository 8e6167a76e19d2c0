#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`, with the same `withLock { }` call shape as
/// `Synchronization.Mutex`.
///
/// Swift 6.3's `Mutex` on Linux locks with a futex that ThreadSanitizer does not see, so
/// every access made under its `withLock` is reported as a race when an app built with
/// `--sanitize=thread` fills the cache from several tasks. A `pthread_mutex_t` is
/// intercepted by TSan, which then knows the accesses are ordered. The mutex is allocated
/// on the heap, so it never moves, and one `Lock` is shared by reference: a `let` of it
/// in a `Sendable` type is enough.
///
/// ```swift
/// import Locking
///
/// final class Counter: Sendable {
///   private let count = Lock(0)
///   func increment() -> Int { count.withLock { $0 += 1; return $0 } }
/// }
/// let counter = Counter()
/// print(counter.increment())  // 1
/// ```
///
/// The mutex is not recursive: calling `withLock` on the same lock inside its own body
/// deadlocks, as with `Mutex`.
public final class Lock<State>: @unchecked Sendable {
  // @unchecked: `state` is only read or written between `pthread_mutex_lock` and
  // `pthread_mutex_unlock` of `mutex`, and `withLock` takes and returns it `sending`,
  // as `Mutex` does, so no non-Sendable value escapes to two threads.
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private nonisolated(unsafe) var state: State

  /// A lock guarding `initialState`.
  public init(_ initialState: sending State) {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    let status = pthread_mutex_init(mutex, nil)
    precondition(status == 0, "Lock: pthread_mutex_init failed with \(status)")
    state = initialState
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  /// Runs `body` with the guarded state while holding the mutex, and returns its result.
  ///
  /// Keep `body` short and never suspend or call back into code that may take the same
  /// lock inside it.
  public func withLock<Result, E: Error>(
    _ body: (inout sending State) throws(E) -> sending Result
  ) throws(E) -> sending Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&state)
  }
}

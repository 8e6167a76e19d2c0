/// Where tests that compute for seconds on end (every 8-bit colour through a profile,
/// every kernel on every photo) run their work: a ``ThreadExecutor`` of its own, one job
/// at a time, leaving Swift's cooperative threads (two here) to the rest of a parallel
/// run. On those threads they kept the run's async tests (HTTP clients, web servers,
/// fills) waiting minutes for a thread, past their patience.
public enum ComputeExecutor {
  /// The one executor the tests share.
  public static let shared = ThreadExecutor(name: "tests' compute executor")

  /// Runs `body` on the shared executor's thread, in the calling task.
  public static func run<Value>(_ body: () throws -> Value) async throws -> Value {
    try await withTaskExecutorPreference(shared) { try body() }
  }
}

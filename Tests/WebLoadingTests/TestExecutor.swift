import TestFixtures

/// The executor of the HTTP client's tests whose tasks must go on while the rest of a
/// parallel run blocks Swift's cooperative threads (two here) for minutes:
/// `withTaskExecutorPreference(TestExecutor.shared) { ... }` runs the body and its child
/// tasks on a thread of its own.
enum TestExecutor {
  static let shared = ThreadExecutor(name: "WebLoadingTests executor")
}

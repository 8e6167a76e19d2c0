import Foundation

/// Runs `body`, which blocks (a `flock` that waits for another writer, a semaphore), on
/// a thread of its own and suspends the calling task until it returns.
///
/// A test must not block Swift's cooperative threads: there are as many as cores (two on
/// a small machine), and two tests blocked in a wait at once leave none for the tasks that
/// would end the wait, so the run hangs instead of failing.
public func onOwnThread<Value: Sendable>(
  _ body: @escaping @Sendable () throws -> Value
) async throws -> Value {
  try await withCheckedThrowingContinuation { continuation in
    let thread = Thread { continuation.resume(with: Swift.Result { try body() }) }
    thread.name = "test blocking call"
    thread.start()
  }
}

import Locking

/// The bytes of one load, handed over a chunk at a time as a test says: a test double
/// of a download that streams, with no sleeps and no timing. The loader reads with
/// ``next()``; the test gives chunks with ``send(_:)``, ends with ``finish()``, and waits
/// for the loader with ``waitUntilAsked(_:)`` and ``waitUntilCancelled()``.
///
/// ```swift
/// let feed = ChunkFeed()
/// // in the loader: while let chunk = try await feed.next() { bytes += chunk }
/// await feed.waitUntilAsked(1)  // the load has started and waits for its first chunk
/// feed.send(Array(photo[..<1000]))
/// feed.send(Array(photo[1000...]))
/// feed.finish()
/// ```
///
/// It honours cancellation as a real transfer does: a reader whose task is cancelled
/// (while it waits, or before it asks) gets `CancellationError`, and so does every later
/// read. One feed serves one load.
public final class ChunkFeed: Sendable {
  private struct State {
    var chunks: [[UInt8]] = []
    var finished = false
    var cancelled = false
    var reader: CheckedContinuation<[UInt8]?, any Error>?
    var asked = 0
    var waitingForAsk: [(count: Int, waiter: Waiter)] = []
    var waitingForCancel: [Waiter] = []
  }

  /// A test waiting, resumed once: by what it waits for, or by its patience running out.
  final class Waiter: Sendable {
    private let continuation: Lock<CheckedContinuation<Void, Never>?>

    init(_ continuation: CheckedContinuation<Void, Never>) {
      self.continuation = Lock(continuation)
    }

    func resume() {
      continuation.withLock { continuation in
        defer { continuation = nil }
        return continuation
      }?.resume()
    }

    /// Resumes it after ``ChunkFeed/patience`` if nothing did before.
    func expire() -> Waiter {
      Task { [self] in
        try? await Task.sleep(for: ChunkFeed.patience)
        resume()
      }
      return self
    }
  }

  /// How long ``waitUntilAsked(_:)`` and ``waitUntilCancelled()`` wait before they return
  /// anyway: a test whose load never asks (or is never cancelled) then fails on what it
  /// expected, not by hanging.
  public static let patience: Duration = .seconds(30)
  private let state = Lock(State())

  public init() {}

  /// How many times the reader asked for a chunk.
  public var asked: Int { state.withLock { $0.asked } }

  /// Whether the reader was cancelled.
  public var sawCancellation: Bool { state.withLock { $0.cancelled } }

  /// The next chunk once the test sends it; nil once the test has finished the feed and
  /// every chunk was read. Throws `CancellationError` when the calling task is cancelled.
  public func next() async throws -> [UInt8]? {
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let (answer, waiters) = state.withLock {
          state -> (Result<[UInt8]?, any Error>?, [Waiter]) in
          state.asked += 1
          let asked = state.asked
          let ready = state.waitingForAsk.filter { $0.count <= asked }.map(\.waiter)
          state.waitingForAsk.removeAll { $0.count <= asked }
          if state.cancelled || Task.isCancelled {
            state.cancelled = true
            let waiters = ready + state.waitingForCancel
            state.waitingForCancel = []
            return (.failure(CancellationError()), waiters)
          }
          if !state.chunks.isEmpty { return (.success(state.chunks.removeFirst()), ready) }
          if state.finished { return (.success(nil), ready) }
          state.reader = continuation
          return (nil, ready)
        }
        for waiter in waiters { waiter.resume() }
        if let answer { continuation.resume(with: answer) }
      }
    } onCancel: {
      let (reader, waiters) = state.withLock { state in
        state.cancelled = true
        defer {
          state.reader = nil
          state.waitingForCancel = []
        }
        return (state.reader, state.waitingForCancel)
      }
      reader?.resume(throwing: CancellationError())
      for waiter in waiters { waiter.resume() }
    }
  }

  /// Hands `chunk` to the reader (now, if it waits; else at its next read).
  public func send(_ chunk: [UInt8]) {
    let reader = state.withLock { state -> CheckedContinuation<[UInt8]?, any Error>? in
      guard let reader = state.reader else {
        state.chunks.append(chunk)
        return nil
      }
      state.reader = nil
      return reader
    }
    reader?.resume(returning: chunk)
  }

  /// No more chunks: the reader gets nil once it has read those sent.
  public func finish() {
    let reader = state.withLock { state -> CheckedContinuation<[UInt8]?, any Error>? in
      state.finished = true
      defer { state.reader = nil }
      return state.reader
    }
    reader?.resume(returning: nil)
  }

  /// Returns once the reader has asked for `count` chunks (for the first: the load began),
  /// or after ``patience``.
  public func waitUntilAsked(_ count: Int) async {
    await withCheckedContinuation { continuation in
      let waiter = Waiter(continuation)
      let now = state.withLock { state -> Bool in
        if state.asked >= count { return true }
        state.waitingForAsk.append((count, waiter.expire()))
        return false
      }
      if now { waiter.resume() }
    }
  }

  /// Returns once the reader was cancelled, or after ``patience``.
  public func waitUntilCancelled() async {
    await withCheckedContinuation { continuation in
      let waiter = Waiter(continuation)
      let now = state.withLock { state -> Bool in
        if state.cancelled { return true }
        state.waitingForCancel.append(waiter.expire())
        return false
      }
      if now { waiter.resume() }
    }
  }
}

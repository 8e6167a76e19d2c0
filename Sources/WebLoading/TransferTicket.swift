import Locking

/// One attempt's identity between the calling task and the engine's thread: the task's
/// cancellation handler marks it, and the engine looks at the mark whenever it takes the
/// attempt up, so a cancel that comes before the start is not lost.
final class TransferTicket: Sendable {
  let id: Int
  private let cancelled = Lock(false)

  init(id: Int) { self.id = id }

  var isCancelled: Bool { cancelled.withLock { $0 } }

  func cancel() { cancelled.withLock { $0 = true } }
}

/// An attempt handed to the engine, with the continuation its task waits on.
struct TransferJob: Sendable {
  let ticket: TransferTicket
  let request: TransferRequest
  let continuation: CheckedContinuation<TransferOutcome, Never>
}

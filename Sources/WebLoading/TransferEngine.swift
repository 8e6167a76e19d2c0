import CCurl
import CCurlShim
import Foundation
import Locking

/// One libcurl multi handle driven on a thread of its own: the attempts of one
/// ``HTTPClient`` run on it, queued under its per-host and total limits, over connections
/// the multi handle keeps alive and reuses.
///
/// Other threads never touch a curl handle: they queue a command (start, cancel) under
/// the lock and wake the thread with `curl_multi_wakeup`, the one multi call libcurl
/// allows from another thread.
final class TransferEngine: Sendable {
  /// What the calling threads and the engine's thread share.
  struct Shared: Sendable {
    var commands: [Command] = []
    var stopping = false
    var nextTicket = 0
    /// Connections opened so far (CURLINFO_NUM_CONNECTS of every finished attempt).
    var connectionsOpened = 0
    /// Attempts handed to libcurl so far.
    var attemptsStarted = 0
    /// The most attempts to one host running at once so far.
    var mostRunningToOneHost = 0
  }

  enum Command: Sendable {
    case start(TransferJob)
    case cancel(TransferTicket)
  }

  private let shared = Lock(Shared())
  private let multi: MultiHandle

  /// Starts the engine's thread. Fails only when libcurl cannot start.
  init(limits: HTTPLimits) {
    let status = ccurl_global_init_once()
    precondition(status == CURLE_OK, "WebLoading: curl_global_init failed (\(status.rawValue))")
    guard let handle = curl_multi_init() else {
      preconditionFailure("WebLoading: curl_multi_init failed")
    }
    multi = MultiHandle(pointer: handle)
    // The engine queues attempts itself (libcurl's own queue would count the wait in
    // each attempt's timeouts); these keep libcurl to the same numbers, and its cache of
    // idle connections big enough to reuse one per running attempt.
    ccurl_multi_setopt_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, limits.connectionsPerHost)
    ccurl_multi_setopt_long(handle, CURLMOPT_MAX_TOTAL_CONNECTIONS, limits.totalConnections)
    ccurl_multi_setopt_long(handle, CURLMOPT_MAXCONNECTS, limits.totalConnections)
    let thread = Thread { [shared, multi] in
      EngineLoop(shared: shared, multi: multi.pointer, limits: limits).run()
    }
    thread.name = "WebLoading transfers"
    thread.start()
  }

  deinit {
    // The wakeup is made under the lock: the loop frees the multi handle only once it
    // has seen `stopping` under the same lock, so the handle is still alive here.
    shared.withLock { shared in
      shared.stopping = true
      curl_multi_wakeup(multi.pointer)
    }
  }

  /// Runs one attempt; cancelling the calling task removes it from libcurl at once.
  func perform(_ request: TransferRequest) async -> TransferOutcome {
    let ticket = shared.withLock { shared in
      shared.nextTicket += 1
      return TransferTicket(id: shared.nextTicket)
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        send(.start(TransferJob(ticket: ticket, request: request, continuation: continuation)))
      }
    } onCancel: {
      ticket.cancel()
      send(.cancel(ticket))
    }
  }

  /// Connections opened so far.
  var connectionsOpened: Int { shared.withLock { $0.connectionsOpened } }

  /// Attempts handed to libcurl so far.
  var attemptsStarted: Int { shared.withLock { $0.attemptsStarted } }

  /// The most attempts to one host that ran at once so far.
  var mostRunningToOneHost: Int { shared.withLock { $0.mostRunningToOneHost } }

  private func send(_ command: Command) {
    shared.withLock { $0.commands.append(command) }
    curl_multi_wakeup(multi.pointer)
  }
}

/// A `CURLM *` that may cross threads: only `curl_multi_wakeup` is called on it outside
/// the engine's thread, which libcurl documents as safe from any thread.
struct MultiHandle: @unchecked Sendable {
  let pointer: UnsafeMutableRawPointer
}

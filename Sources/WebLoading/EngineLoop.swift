import CCurl
import CCurlShim
import Locking

/// The engine's thread: takes commands, starts queued attempts under the limits, drives
/// libcurl, ends attempts (done, idle, cancelled) and sleeps in `curl_multi_poll`.
///
/// Everything here lives on that one thread; the curl handles never leave it.
final class EngineLoop {
  private let shared: Lock<TransferEngine.Shared>
  private let multi: UnsafeMutableRawPointer
  private let limits: HTTPLimits
  /// Attempts waiting for a free slot, oldest first.
  private var queue: [TransferJob] = []
  /// Running attempts by their easy handle.
  private var running: [UnsafeMutableRawPointer: ActiveTransfer] = [:]
  /// Running attempts by ticket, for cancels.
  private var runningByTicket: [Int: UnsafeMutableRawPointer] = [:]
  private var runningPerHost: [String: Int] = [:]

  /// How long the loop sleeps at most while attempts run: the idle check's resolution.
  private static let pollWhileRunning: Int32 = 100
  private static let pollWhileIdle: Int32 = 60_000

  init(shared: Lock<TransferEngine.Shared>, multi: UnsafeMutableRawPointer, limits: HTTPLimits) {
    self.shared = shared
    self.multi = multi
    self.limits = limits
  }

  func run() {
    while true {
      let commands: [TransferEngine.Command]? = shared.withLock { shared in
        if shared.stopping { return nil }
        defer { shared.commands = [] }
        return shared.commands
      }
      guard let commands else { break }
      for command in commands {
        switch command {
        case .start(let job): queue.append(job)
        case .cancel(let ticket): cancel(ticket)
        }
      }
      startQueued()
      var stillRunning: Int32 = 0
      curl_multi_perform(multi, &stillRunning)
      finishDone()
      endIdle()
      startQueued()
      let timeout = running.isEmpty ? Self.pollWhileIdle : Self.pollWhileRunning
      curl_multi_poll(multi, nil, 0, timeout, nil)
    }
    for transfer in running.values { end(transfer, with: .failed(.cancelled)) }
    for job in queue { job.continuation.resume(returning: .failed(.cancelled)) }
    curl_multi_cleanup(multi)
  }

  /// Starts queued attempts, in order, while their host and the total have room.
  private func startQueued() {
    guard !queue.isEmpty, running.count < limits.totalConnections else { return }
    var waiting: [TransferJob] = []
    for job in queue {
      if job.ticket.isCancelled {
        job.continuation.resume(returning: .failed(.cancelled))
        continue
      }
      let host = job.request.hostKey
      let onHost = runningPerHost[host, default: 0]
      guard running.count < limits.totalConnections, onHost < limits.connectionsPerHost else {
        waiting.append(job)
        continue
      }
      do {
        let transfer = try ActiveTransfer(job: job)
        let status = curl_multi_add_handle(multi, transfer.easy)
        guard status == CURLM_OK else {
          transfer.release()
          let message = String(cString: curl_multi_strerror(status))
          job.continuation.resume(returning: .failed(.other("libcurl: \(message)")))
          continue
        }
        running[transfer.easy] = transfer
        runningByTicket[job.ticket.id] = transfer.easy
        runningPerHost[host] = onHost + 1
        shared.withLock { shared in
          shared.attemptsStarted += 1
          shared.mostRunningToOneHost = max(shared.mostRunningToOneHost, onHost + 1)
        }
      } catch {
        job.continuation.resume(returning: .failed(error))
      }
    }
    queue = waiting
  }

  private func cancel(_ ticket: TransferTicket) {
    if let easy = runningByTicket[ticket.id], let transfer = running[easy] {
      end(transfer, with: .failed(.cancelled))
    } else if let index = queue.firstIndex(where: { $0.ticket.id == ticket.id }) {
      queue.remove(at: index).continuation.resume(returning: .failed(.cancelled))
    }
    // Otherwise it ended already, or its start is still to come and sees the mark.
  }

  /// Ends the attempts libcurl says are done.
  private func finishDone() {
    var left: Int32 = 0
    while let message = curl_multi_info_read(multi, &left) {
      guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else {
        continue
      }
      let result = message.pointee.data.result
      guard let transfer = running[easy] else { continue }
      end(transfer, with: transfer.outcome(of: result))
    }
  }

  /// Ends the attempts that received no byte for the idle timeout.
  private func endIdle() {
    let now = ContinuousClock.now
    for transfer in running.values where transfer.isIdle(at: now, limit: limits.idleTimeout) {
      end(transfer, with: .failed(.timeout(.idle)))
    }
  }

  private func end(_ transfer: ActiveTransfer, with outcome: TransferOutcome) {
    let connections = transfer.connectionsOpened
    curl_multi_remove_handle(multi, transfer.easy)
    running[transfer.easy] = nil
    runningByTicket[transfer.job.ticket.id] = nil
    let host = transfer.job.request.hostKey
    runningPerHost[host] = runningPerHost[host, default: 1] - 1
    if runningPerHost[host] == 0 { runningPerHost[host] = nil }
    transfer.release()
    if connections > 0 { shared.withLock { $0.connectionsOpened += connections } }
    transfer.job.continuation.resume(returning: outcome)
  }
}

import Foundation
import Locking

#if canImport(Glibc)
  import Glibc
#endif

/// A loopback HTTP server that holds every request it gets until the test releases it,
/// and counts what a client does from the server's side: how many requests it holds at
/// once (the most so far), and how many connections the client closed while held.
///
/// Two servers made with `sharing:` count together (two hosts, one tally) and share
/// their releases.
///
/// Each connection gets the status line, a `Content-Length` of `body` and the first half
/// of the body at once, then waits; ``release(_:)`` lets that many held requests finish
/// (the rest of the body, then the connection closes). A client that closes a held
/// connection is counted in ``State/closedByClient``. Blocking calls: use it from
/// `onOwnThread`.
final class HoldingServer: Sendable {
  struct State: Sendable {
    var held = 0
    var mostHeld = 0
    var requests = 0
    var served = 0
    var closedByClient = 0
    var releases = 0
  }

  let port: Int
  let body: [UInt8]
  private let state: Lock<State>
  private let listener: Int32
  private let stopped: Lock<Bool>

  init(body: [UInt8], sharing other: HoldingServer? = nil) throws {
    self.body = body
    state = other?.state ?? Lock(State())
    stopped = other?.stopped ?? Lock(false)
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard listener >= 0 else { throw POSIXError(.EIO) }
    self.listener = listener
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(listener, 64) == 0 else {
      close(listener)
      throw POSIXError(.EADDRINUSE)
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(listener, $0, &length)
      }
    }
    port = Int(UInt16(bigEndian: address.sin_port))
    let thread = Thread { [self] in acceptLoop() }
    thread.start()
  }

  func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)/\(path)")! }

  var current: State { state.withLock { $0 } }

  /// Lets `count` held requests (now or later) finish; a released one no longer counts
  /// as held.
  func release(_ count: Int = 1) { state.withLock { $0.releases += count } }

  /// Blocks until `condition` holds, or 100 s passed (a loaded machine running the whole
  /// suite may take long to start a task); whether it held.
  func wait(until condition: (State) -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .seconds(100)
    while ContinuousClock.now < deadline {
      if condition(current) { return true }
      usleep(2_000)
    }
    return condition(current)
  }

  func stop() {
    stopped.withLock { $0 = true }
    shutdown(listener, Int32(SHUT_RDWR))
    close(listener)
  }

  private func acceptLoop() {
    while !stopped.withLock({ $0 }) {
      let connection = accept(listener, nil, nil)
      guard connection >= 0 else { return }
      let thread = Thread { [self] in serve(connection) }
      thread.start()
    }
  }

  private func serve(_ connection: Int32) {
    defer { close(connection) }
    var request: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !request.containsHeaderEnd {
      let count = recv(connection, &buffer, buffer.count, 0)
      guard count > 0 else { return }
      request += buffer[..<count]
    }
    state.withLock { $0.requests += 1 }
    let head =
      "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: \(body.count)\r\n"
      + "Connection: close\r\n\r\n"
    let half = body.count / 2
    guard send(connection, Array(head.utf8)) && send(connection, Array(body[..<half])) else {
      state.withLock { $0.closedByClient += 1 }
      return
    }
    // Held from here, once the first half has gone out.
    state.withLock { state in
      state.held += 1
      state.mostHeld = max(state.mostHeld, state.held)
    }
    // Held: wait for a release, watching for the client closing the connection.
    while true {
      let released = state.withLock { state -> Bool in
        guard state.releases > 0 else { return false }
        state.releases -= 1
        state.held -= 1
        return true
      }
      if released { break }
      if stopped.withLock({ $0 }) { return }
      var watch = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
      if poll(&watch, 1, 5) > 0 {
        let count = recv(connection, &buffer, buffer.count, 0)
        if count <= 0 {
          state.withLock { state in
            state.held -= 1
            state.closedByClient += 1
          }
          return
        }
      }
    }
    if send(connection, Array(body[half...])) { state.withLock { $0.served += 1 } }
  }

  private func send(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
    var sent = 0
    while sent < bytes.count {
      let count = bytes[sent...].withUnsafeBytes {
        Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard count > 0 else { return false }
      sent += count
    }
    return true
  }
}

extension [UInt8] {
  fileprivate var containsHeaderEnd: Bool {
    guard count >= 4 else { return false }
    for index in 0...(count - 4)
    where self[index] == 13 && self[index + 1] == 10 && self[index + 2] == 13
      && self[index + 3] == 10
    {
      return true
    }
    return false
  }
}

import Foundation
import Testing
import WebLoading

#if canImport(Glibc)
  import Glibc
#endif

/// A server that never completes a connection: a loopback socket listening with a
/// backlog of 0 whose accept queue is filled and never accepted, so Linux drops the
/// client's SYNs and connecting hangs.
@Suite struct ConnectTimeoutTests {
  final class FullBacklog {
    let port: Int
    private var sockets: [Int32] = []

    init() throws {
      let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      guard listener >= 0, bound == 0, listen(listener, 0) == 0 else {
        throw POSIXError(.EADDRINUSE)
      }
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
      }
      port = Int(UInt16(bigEndian: address.sin_port))
      sockets.append(listener)
      // Fill the accept queue (a backlog of 0 holds one); non-blocking, so a dropped SYN
      // does not hold the test.
      for _ in 0..<2 {
        let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        _ = withUnsafePointer(to: &address) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
          }
        }
        sockets.append(filler)
      }
      // The first filler is in the queue once its connect completes: the queue is full.
      var first = pollfd(fd: sockets[1], events: Int16(POLLOUT), revents: 0)
      guard poll(&first, 1, 5_000) == 1 else { throw POSIXError(.ETIMEDOUT) }
    }

    deinit { for socket in sockets { close(socket) } }
  }

  @Test func aConnectionThatIsNeverMadeEndsWithTheConnectTimeout() async throws {
    let server = try FullBacklog()
    let client = HTTPClient(
      limits: HTTPLimits(
        connectTimeout: .seconds(1), idleTimeout: .seconds(30), retries: 1,
        retryDelay: .milliseconds(10)))
    let url = URL(string: "http://127.0.0.1:\(server.port)/a.jpg")!
    let error = await failure { () async throws(HTTPError) in try await client.get(url) }
    #expect(
      error == .timedOut(url: url.absoluteString, phase: .connect, seconds: 1, attempts: 2))
    withExtendedLifetime(server) {}
  }
}

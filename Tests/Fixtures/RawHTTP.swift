import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A tiny HTTP/1.1 client over POSIX sockets, for tests that check a web server itself
/// (the test servers, or what a server was sent) without the HTTP client under test.
///
/// ```swift
/// let response = try RawHTTP.get(url, headers: ["If-None-Match": etag])
/// // response.status == 304, response.body == [], response.end == .complete
/// let connection = try RawHTTP.Connection(port: server.port)  // keep-alive: one socket
/// let first = try connection.get("/rocket.jpg")
/// let second = try connection.get("/hubble.jpg")
/// ```
///
/// It reads the body by `Content-Length`, `Transfer-Encoding: chunked` or until the
/// connection closes, and says how the body ended (``End``) instead of throwing, so a
/// body cut short or a stall after the headers can be asserted. Each read waits at most
/// `timeout`. Calls block: use ``onOwnThread(_:)`` in async tests.
public enum RawHTTP {
  /// How a response's body ended.
  public enum End: Sendable, Equatable {
    /// All of it arrived (by its length, its last chunk, or the close it is delimited by).
    case complete
    /// The connection closed before the body's announced length or last chunk.
    case closedEarly
    /// No byte arrived for `timeout`.
    case timedOut
    /// `maximumBody` bytes arrived and reading stopped (the rest was not read).
    case bodyLimit
  }

  public struct Response: Sendable {
    public var status: Int
    public var reason: String
    /// Header names lowercased; a repeated header's values joined with ", ".
    public var headers: [String: String]
    public var body: [UInt8]
    public var end: End

    /// The header `name` (any case).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
  }

  /// One GET of `url` (http, 127.0.0.1 or another IPv4 address) on a new connection.
  public static func get(
    _ url: URL, headers: [String: String] = [:], timeout: Duration = .seconds(10),
    maximumBody: Int = 256 << 20
  ) throws(RawHTTPError) -> Response {
    guard url.scheme == "http", let host = url.host, let port = url.port ?? 80 as Int? else {
      throw .malformed(url: url.absoluteString, reason: "not an http://host:port URL")
    }
    let connection = try Connection(host: host, port: port, timeout: timeout)
    defer { connection.close() }
    var target = url.path.isEmpty ? "/" : url.path
    if let query = url.query { target += "?" + query }
    return try connection.get(target, headers: headers, maximumBody: maximumBody)
  }

  /// A connection kept open for several requests (HTTP keep-alive).
  public final class Connection {
    private var descriptor: Int32
    private let host: String
    private let port: Int
    private var buffer: [UInt8] = []
    private var closedByPeer = false

    /// Connects to `host:port`; each read then waits at most `timeout`.
    public init(host: String = "127.0.0.1", port: Int, timeout: Duration = .seconds(10))
      throws(RawHTTPError)
    {
      self.host = host
      self.port = port
      descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      guard descriptor >= 0 else {
        throw .connectFailed(host: host, port: port, reason: String(cString: strerror(errno)))
      }
      let seconds = timeout.components.seconds
      let micro = timeout.components.attoseconds / 1_000_000_000_000
      var interval = timeval(tv_sec: Int(seconds), tv_usec: Int(micro))
      setsockopt(
        descriptor, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
      setsockopt(
        descriptor, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = UInt16(port).bigEndian
      guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1
      else {
        close()
        throw .malformed(url: "http://\(host):\(port)", reason: "not an IPv4 address")
      }
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      guard connected == 0 else {
        let reason = String(cString: strerror(errno))
        close()
        throw .connectFailed(host: host, port: port, reason: reason)
      }
    }

    // An init that throws once every property is set still runs deinit: the failures
    // above close through close(), which forgets the number, or deinit would close it
    // again, by then perhaps another test's file or pipe (an index's posix_fallocate then
    // failed with EBADF, and a server's port line read nothing).
    deinit { close() }

    /// Closes the connection (idempotent).
    public func close() {
      if descriptor >= 0 { Glibc.close(descriptor) }
      descriptor = -1
    }

    /// Whether the server closed this connection (after the last response).
    public var isClosedByServer: Bool { closedByPeer }

    /// Sends a GET of `target` (a path with its query) and reads the response.
    public func get(
      _ target: String, headers: [String: String] = [:], maximumBody: Int = 256 << 20
    ) throws(RawHTTPError) -> Response {
      let url = "http://\(host):\(port)\(target)"
      guard descriptor >= 0 else { throw .malformed(url: url, reason: "the connection is closed") }
      var request = "GET \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\n"
      for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
        request += "\(name): \(value)\r\n"
      }
      request += "\r\n"
      let bytes = Array(request.utf8)
      var sent = 0
      while sent < bytes.count {
        let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else {
          throw .sendFailed(url: url, reason: String(cString: strerror(errno)))
        }
        sent += count
      }
      return try readResponse(url: url, maximumBody: maximumBody)
    }

    private enum Fill { case bytes, closed, timedOut }

    private func fill() -> Fill {
      var chunk = [UInt8](repeating: 0, count: 64 * 1024)
      while true {
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count > 0 {
          buffer.append(contentsOf: chunk[..<count])
          return .bytes
        }
        if count == 0 {
          closedByPeer = true
          return .closed
        }
        if errno == EINTR { continue }
        if errno == EAGAIN || errno == EWOULDBLOCK { return .timedOut }
        closedByPeer = true
        return .closed  // ECONNRESET and the like: the server is gone
      }
    }

    private func readResponse(url: String, maximumBody: Int) throws(RawHTTPError) -> Response {
      let separator: [UInt8] = [13, 10, 13, 10]
      var headEnd: Int?
      while headEnd == nil {
        if let range = buffer.firstRange(of: separator) {
          headEnd = range.upperBound
          break
        }
        switch fill() {
        case .bytes: continue
        case .closed: throw .closedBeforeHeaders(url: url, received: buffer.count)
        case .timedOut: throw .timedOutBeforeHeaders(url: url, received: buffer.count)
        }
      }
      let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
      buffer.removeFirst(headEnd!)
      var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
      let statusLine = lines.isEmpty ? "" : lines.removeFirst()
      let parts = statusLine.split(separator: " ", maxSplits: 2).map(String.init)
      guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
        throw .malformed(url: url, reason: "status line '\(statusLine)'")
      }
      var headers: [String: String] = [:]
      for line in lines {
        guard let colon = line.firstIndex(of: ":") else {
          throw .malformed(url: url, reason: "header line '\(line)'")
        }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        headers[name] = headers[name].map { "\($0), \(value)" } ?? value
      }
      var response = Response(
        status: status, reason: parts.count > 2 ? parts[2] : "", headers: headers, body: [],
        end: .complete)
      if status == 204 || status == 304 || (100..<200).contains(status) { return response }
      if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
        readChunked(into: &response, maximumBody: maximumBody)
      } else if let length = headers["content-length"].flatMap({ Int($0) }) {
        readBody(into: &response, length: length, maximumBody: maximumBody)
      } else {
        readBody(into: &response, length: nil, maximumBody: maximumBody)
      }
      return response
    }

    /// Reads `length` bytes, or until the close when nil.
    private func readBody(into response: inout Response, length: Int?, maximumBody: Int) {
      while true {
        let wanted = min(length ?? Int.max, maximumBody)
        if buffer.count >= wanted {
          response.body = Array(buffer[..<wanted])
          buffer.removeFirst(wanted)
          response.end = wanted == length ? .complete : .bodyLimit
          return
        }
        switch fill() {
        case .bytes: continue
        case .closed:
          response.body = buffer
          buffer = []
          response.end = length == nil ? .complete : .closedEarly
          return
        case .timedOut:
          response.body = buffer
          buffer = []
          response.end = .timedOut
          return
        }
      }
    }

    private func readChunked(into response: inout Response, maximumBody: Int) {
      let crlf: [UInt8] = [13, 10]
      while true {
        guard let lineEnd = buffer.firstRange(of: crlf) else {
          switch fill() {
          case .bytes: continue
          case .closed: response.end = .closedEarly
          case .timedOut: response.end = .timedOut
          }
          return
        }
        let sizeText =
          String(decoding: buffer[..<lineEnd.lowerBound], as: UTF8.self)
          .split(separator: ";").first.map(String.init) ?? ""
        guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
          response.end = .closedEarly
          return
        }
        while buffer.count < lineEnd.upperBound + size + 2 {
          switch fill() {
          case .bytes: continue
          case .closed:
            response.end = .closedEarly
            return
          case .timedOut:
            response.end = .timedOut
            return
          }
        }
        response.body += buffer[lineEnd.upperBound..<lineEnd.upperBound + size]
        buffer.removeFirst(lineEnd.upperBound + size + 2)
        if size == 0 { return }  // trailers are not read: the tests' servers send none
        if response.body.count >= maximumBody {
          response.end = .bodyLimit
          return
        }
      }
    }
  }
}

/// Why ``RawHTTP`` got no response head.
public enum RawHTTPError: Error, CustomStringConvertible, Equatable {
  case connectFailed(host: String, port: Int, reason: String)
  case sendFailed(url: String, reason: String)
  case closedBeforeHeaders(url: String, received: Int)
  case timedOutBeforeHeaders(url: String, received: Int)
  case malformed(url: String, reason: String)

  public var description: String {
    switch self {
    case .connectFailed(let host, let port, let reason):
      "could not connect to \(host):\(port): \(reason)"
    case .sendFailed(let url, let reason): "\(url): sending the request failed: \(reason)"
    case .closedBeforeHeaders(let url, let received):
      "\(url): the server closed the connection after \(received) bytes, before the headers ended"
    case .timedOutBeforeHeaders(let url, let received):
      "\(url): the headers did not arrive in time (\(received) bytes so far)"
    case .malformed(let url, let reason): "\(url): not an HTTP response: \(reason)"
    }
  }
}

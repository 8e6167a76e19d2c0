import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A web server on a free 127.0.0.1 port that misbehaves on purpose: it stalls, cuts
/// bodies short, announces gigabytes, sends HTML for a photo, redirects in a loop, fails
/// and recovers, and lies about content types. It is `web/misbehaving_server.py` (Python 3,
/// standard library) run with `python3`; that script documents every path:
///
/// | path | what it does |
/// | --- | --- |
/// | `stall.jpg[?after=N&seconds=S]` | headers (a photo's Content-Length), N bytes (0), then silence for S s (600) |
/// | `short.jpg` | the Content-Length of a whole photo, half the body, then close |
/// | `huge.jpg` | Content-Length: 8 GiB, then the photo and filler |
/// | `nolength.jpg` | no Content-Length, the photo, then filler to 256 MiB (past every limit of the tests) |
/// | `page.jpg` | status 200, `text/html`: a page that says 404 Not Found |
/// | `loop`, `loop2` | 302 to each other |
/// | `chain/N` | N redirects, then the photo |
/// | `flaky.jpg[?fail=K&key=X]` | 500 for the first K (2) requests of this exact target, then the photo |
/// | `missing.jpg` | 404 |
/// | `png-as-jpeg.jpg` | a PNG (coffee.png) sent as `image/jpeg` |
/// | `slow.jpg[?seconds=S&chunks=N]` | the photo with its Content-Length in N chunks (20) over S s (2) |
/// | `photos/NAME` | the kept photo NAME, served normally |
///
/// The photo is `rocket.jpg` unless `?photo=NAME` names another kept photo.
///
/// ```swift
/// let server = try MisbehavingServer.start()
/// let flaky = server.url("flaky.jpg?fail=1&key=\(UUID())")  // a counter of its own
/// // ... the client under test gets `flaky` ...
/// let tries = try server.requestCount("flaky.jpg?fail=1&key=...")
/// server.stop()
/// ```
///
/// The server ends with this process, however it ends (it watches its standard input, a
/// pipe only this process holds). `start` blocks until it listens: call it from
/// ``onOwnThread(_:)`` in async tests.
public final class MisbehavingServer: Sendable {
  /// The loopback port it listens on.
  public let port: Int
  private let child: ChildServer

  private init(port: Int, child: ChildServer) {
    self.port = port
    self.child = child
  }

  /// Starts the server and returns once it listens.
  public static func start() throws(WebFixtureError) -> MisbehavingServer {
    let python = try Python.executable()
    let folder: URL
    do {
      folder = try Fixtures.temporaryFolder()
    } catch {
      throw .couldNotStart(program: "misbehaving_server.py", reason: "no scratch folder: \(error)")
    }
    let child = try ChildServer(
      executable: python, arguments: [Python.script("misbehaving_server.py")],
      errorLog: folder.appendingPathComponent("misbehaving-server.log"), captureOutput: true)
    // The script prints its port as one line once it listens; EOF means it failed. A
    // read a signal interrupts (EINTR: a test's child process ending) is made again.
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while let output = child.output {
      let got = read(output.fileDescriptor, &byte, 1)
      if got < 0, errno == EINTR { continue }
      guard got == 1, byte != UInt8(ascii: "\n") else { break }
      line.append(byte)
    }
    guard let port = Int(String(decoding: line, as: UTF8.self)) else {
      child.stop()
      throw .couldNotStart(
        program: "misbehaving_server.py",
        reason: "it printed no port; it said: \(child.errors())")
    }
    return MisbehavingServer(port: port, child: child)
  }

  /// `http://127.0.0.1:<port>/<path>`; `path` may carry a query.
  public func url(_ path: String) -> URL {
    URL(string: "http://127.0.0.1:\(port)/\(Self.relative(path))")!
  }

  /// How many requests reached `path` (with its query, exactly as in ``url(_:)``) so far.
  /// Asks the server (`/_requests`), which counts a request as soon as it arrives.
  public func requestCount(_ path: String) throws(RawHTTPError) -> Int {
    let target = "/" + Self.relative(path)
    let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
    let response = try RawHTTP.get(url("_requests?target=\(encoded)"))
    guard response.status == 200, let count = Int(String(decoding: response.body, as: UTF8.self))
    else {
      throw .malformed(url: url("_requests").absoluteString, reason: "no count in its answer")
    }
    return count
  }

  /// Stops the server and waits until it has exited. Also done when it is released.
  public func stop() { child.stop() }

  deinit { child.stop() }

  /// A loopback URL whose port nobody listens on: connecting is refused at once.
  ///
  /// The port stays bound (never listening) by this process, so no other server takes it.
  public static func refusedURL() -> URL {
    URL(string: "http://127.0.0.1:\(refusedPort)/refused.jpg")!
  }

  private static let refusedPort: Int = {
    guard let socket = LoopbackPort.boundSocket() else {
      fatalError("MisbehavingServer: could not bind a loopback port for refusedURL()")
    }
    return socket.port  // its descriptor stays open, bound, for the whole process
  }()

  private static func relative(_ path: String) -> String {
    path.hasPrefix("/") ? String(path.dropFirst()) : path
  }
}

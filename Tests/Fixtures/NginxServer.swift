import Foundation
import Locking

#if canImport(Glibc)
  import Glibc
#endif

/// Debian's nginx (`/usr/sbin/nginx`, from `nginx-light`: Scripts/bootstrap installs it)
/// serving a folder on a free 127.0.0.1 port, with a config of its own: ETags on,
/// keep-alive, and an access log that records each request's method, path, status, body
/// bytes sent and `If-None-Match` / `If-Modified-Since` headers.
///
/// ```swift
/// let server = try NginxServer.start(serving: URL(fileURLWithPath: Fixtures.folder.path + "/photos"))
/// let response = try RawHTTP.get(server.url("rocket.jpg"))  // 200, the file's bytes, an ETag
/// let log = server.accessLog(waitingFor: 1)                 // [GET /rocket.jpg 200 ...]
/// server.stop()                                             // also when it is released
/// ```
///
/// Everything nginx writes (its config, pid file, temp folders, logs) lives in a scratch
/// folder of its own. It runs under `web/watchdog.py`, which stops it when this process
/// ends however it ends. Run as root (CI), its workers run as root too, so that they read
/// files in a clone only root may enter. `start` blocks until nginx accepts connections
/// (well under a second): call it from ``onOwnThread(_:)`` in async tests.
public final class NginxServer: Sendable {
  /// The loopback port nginx listens on.
  public let port: Int
  /// The folder it serves.
  public let root: URL
  /// Its scratch folder: `nginx.conf`, `access.log`, `error.log`, `nginx.pid`, temp folders.
  public let folder: URL
  private let child: ChildServer
  /// nginx's master process, once it listens; nil once stopped.
  private let master = Lock<Int32?>(nil)

  /// Where nginx is: Debian's.
  public static let executable = URL(fileURLWithPath: "/usr/sbin/nginx")

  /// One request as nginx's access log recorded it.
  public struct Request: Sendable, Equatable, CustomStringConvertible {
    public var method: String
    /// The request target as sent: the path with its query.
    public var path: String
    public var status: Int
    /// `$body_bytes_sent`: 0 for a `304`.
    public var bodyBytes: Int
    public var ifNoneMatch: String?
    public var ifModifiedSince: String?

    public init(
      method: String, path: String, status: Int, bodyBytes: Int, ifNoneMatch: String? = nil,
      ifModifiedSince: String? = nil
    ) {
      self.method = method
      self.path = path
      self.status = status
      self.bodyBytes = bodyBytes
      self.ifNoneMatch = ifNoneMatch
      self.ifModifiedSince = ifModifiedSince
    }

    public var description: String {
      "\(method) \(path) \(status) \(bodyBytes)"
        + (ifNoneMatch.map { " If-None-Match: \($0)" } ?? "")
        + (ifModifiedSince.map { " If-Modified-Since: \($0)" } ?? "")
    }
  }

  private init(port: Int, root: URL, folder: URL, child: ChildServer) {
    self.port = port
    self.root = root
    self.folder = folder
    self.child = child
  }

  /// Starts nginx serving `root` (a folder) on a free loopback port and returns once it
  /// accepts connections. `workers` is nginx's `worker_processes`.
  public static func start(serving root: URL, workers: Int = 1) throws(WebFixtureError)
    -> NginxServer
  {
    try start(serving: root, workers: workers, ports: LoopbackPort.free)
  }

  /// ``start(serving:workers:)`` trying the ports `ports` gives, in turn, while nginx finds
  /// the one it was given taken.
  static func start(serving root: URL, workers: Int, ports: () -> Int?) throws(WebFixtureError)
    -> NginxServer
  {
    guard FileManager.default.isExecutableFile(atPath: executable.path) else {
      throw .couldNotStart(
        program: executable.path, reason: "nginx is not installed; run Scripts/bootstrap")
    }
    let folder: URL
    do {
      folder = try Fixtures.temporaryFolder().appendingPathComponent("nginx")
      for name in ["", "temp"] {
        try FileManager.default.createDirectory(
          at: folder.appendingPathComponent(name), withIntermediateDirectories: true)
      }
    } catch {
      throw .couldNotStart(program: executable.path, reason: "no scratch folder: \(error)")
    }
    // Another process may take the free port before nginx binds it: then try another.
    var lastErrors = ""
    for _ in 0..<8 {
      guard let port = ports() else {
        throw .couldNotStart(program: executable.path, reason: "no free loopback port")
      }
      let config = folder.appendingPathComponent("nginx.conf")
      // A fresh error log and pid file each attempt, so that an earlier attempt's are not
      // taken for this one's.
      try? FileManager.default.removeItem(at: folder.appendingPathComponent("error.log"))
      try? FileManager.default.removeItem(at: folder.appendingPathComponent("nginx.pid"))
      do {
        try configuration(root: root, folder: folder, port: port, workers: workers)
          .write(to: config, atomically: true, encoding: .utf8)
      } catch {
        throw .couldNotStart(program: executable.path, reason: "could not write \(config.path)")
      }
      let child = try ChildServer(
        executable: try Python.executable(),
        arguments: [
          Python.script("watchdog.py"), executable.path, "-p", folder.path + "/", "-c",
          config.path, "-e", folder.appendingPathComponent("error.log").path,
        ],
        errorLog: folder.appendingPathComponent("stderr.log"))
      let server = NginxServer(port: port, root: root, folder: folder, child: child)
      switch waitUntilListening(server) {
      case .listening:
        let pidText = try? String(
          contentsOf: folder.appendingPathComponent("nginx.pid"), encoding: .utf8)
        let pid = pidText.flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        server.master.withLock { $0 = pid }
        return server
      case .exited(let errors) where errors.contains("Address already in use"):
        lastErrors = errors
        continue
      case .exited(let errors), .timedOut(let errors):
        server.stop()
        throw .notListening(
          program: executable.path, port: port,
          seconds: Double(startupPatience.components.seconds), errors: errors)
      }
    }
    throw .couldNotStart(
      program: executable.path, reason: "every free port was taken: \(lastErrors)")
  }

  /// `http://127.0.0.1:<port>/<path>`; `path` may carry a query.
  public func url(_ path: String) -> URL {
    let relative = path.hasPrefix("/") ? String(path.dropFirst()) : path
    return URL(string: "http://127.0.0.1:\(port)/\(relative)")!
  }

  /// The requests nginx has logged so far, oldest first.
  ///
  /// nginx writes a request's line just after it has sent the response, so a client can
  /// have the response before its line is written: use ``accessLog(waitingFor:)`` right
  /// after requests.
  public func accessLog() -> [Request] {
    guard let text = try? String(contentsOf: accessLogFile, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").compactMap { Self.parse(String($0)) }
  }

  /// The logged requests once there are at least `count` of them, or after 10 s whatever
  /// is there (a test then fails on what it expected, not here).
  public func accessLog(waitingFor count: Int) -> [Request] {
    let deadline = ContinuousClock.now + .seconds(10)
    while true {
      let log = accessLog()
      if log.count >= count || ContinuousClock.now >= deadline { return log }
      usleep(2_000)
    }
  }

  /// The access log file: one tab-separated line a request (method, target, status, body
  /// bytes, If-None-Match, If-Modified-Since; `-` for a missing header).
  public var accessLogFile: URL { folder.appendingPathComponent("access.log") }

  /// Stops nginx (SIGTERM through its watchdog, SIGKILL 5 s later) and waits until it has
  /// exited. Also done when the server is released.
  public func stop() {
    // nginx itself first, waited for: on a busy machine the watchdog's grace could run
    // out, and nginx be left serving after its watchdog was killed.
    if let pid = master.withLock({ pid in
      defer { pid = nil }
      return pid
    }) {
      kill(pid, SIGTERM)
      let deadline = ContinuousClock.now + .seconds(30)
      while Self.isRunning(pid), ContinuousClock.now < deadline { usleep(2_000) }
      if Self.isRunning(pid) { kill(pid, SIGKILL) }
    }
    child.stop()
  }

  deinit { stop() }

  /// Whether `pid` is a process that has not ended (a zombie has).
  private static func isRunning(_ pid: Int32) -> Bool {
    guard kill(pid, 0) == 0 else { return false }
    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    guard let close = stat.lastIndex(of: ")") else { return false }
    return !stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
  }

  // MARK: -

  private enum Startup { case listening, exited(String), timedOut(String) }

  /// How long a start may take before it is called failed. Long: a full test run on two
  /// busy cores has taken over 10 s to start a Python watchdog and nginx; a start that
  /// works returns as soon as nginx listens, so only a broken one waits this long.
  static let startupPatience: Duration = .seconds(60)

  private static func waitUntilListening(_ server: NginxServer) -> Startup {
    let deadline = ContinuousClock.now + startupPatience
    let pidFile = server.folder.appendingPathComponent("nginx.pid").path
    var pidFileSeen = false
    var polls = 0
    while ContinuousClock.now < deadline {
      // A connection alone could reach whoever took the port first: nginx writes its pid
      // file only once its listening socket is bound, and exits when it cannot bind it.
      pidFileSeen = FileManager.default.fileExists(atPath: pidFile)
      if pidFileSeen, server.child.isRunning, LoopbackPort.accepts(server.port) {
        return .listening
      }
      if !server.child.isRunning {
        server.child.stop()
        return .exited(server.errors())
      }
      // nginx logs that it could not bind the port before it exits; on a loaded machine
      // its watchdog was once still running 60 s later (a full CI run, 2026-12-05). The
      // log says enough: stop it and let the caller try another port.
      polls += 1
      if !pidFileSeen, polls % 20 == 0 {
        let errors = server.errors()
        if errors.contains("Address already in use") {
          server.child.stop()
          return .exited(errors)
        }
      }
      usleep(5_000)
    }
    let seen = pidFileSeen ? "its pid file was written" : "it wrote no pid file"
    return .timedOut(([seen] + [server.errors()].filter { !$0.isEmpty }).joined(separator: "; "))
  }

  private func errors() -> String {
    let log =
      (try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
    return (log + child.errors()).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  static func configuration(root: URL, folder: URL, port: Int, workers: Int) -> String {
    let temp = folder.appendingPathComponent("temp").path
    // As root, nginx's workers would run as `nobody`, who cannot enter a clone in a 0700
    // home: run them as root. The directive is an error-log warning when not root.
    let user = geteuid() == 0 ? "user root root;\n" : ""
    return """
      \(user)daemon off;
      master_process on;
      worker_processes \(workers);
      pid \(folder.path)/nginx.pid;
      error_log \(folder.path)/error.log warn;
      events { worker_connections 1024; }
      http {
        types {
          image/jpeg jpg jpeg;
          image/png png;
          image/webp webp;
          image/gif gif;
          image/tiff tif tiff;
          text/html html;
          text/plain txt;
        }
        default_type application/octet-stream;
        log_format fixture '$request_method\\t$request_uri\\t$status\\t$body_bytes_sent\\t$http_if_none_match\\t$http_if_modified_since';
        access_log \(folder.path)/access.log fixture;
        client_body_temp_path \(temp)/body;
        proxy_temp_path \(temp)/proxy;
        fastcgi_temp_path \(temp)/fastcgi;
        uwsgi_temp_path \(temp)/uwsgi;
        scgi_temp_path \(temp)/scgi;
        sendfile on;
        tcp_nodelay on;
        etag on;
        if_modified_since exact;
        keepalive_timeout 60s;
        keepalive_requests 100000;
        server {
          listen 127.0.0.1:\(port) backlog=1024;
          server_name localhost;
          root \(root.path);
          location / { }
        }
      }

      """
  }

  /// One access log line as a ``Request``; nil for a line that is not one.
  static func parse(_ line: String) -> Request? {
    let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    guard fields.count == 6, let status = Int(fields[2]), let bytes = Int(fields[3]) else {
      return nil
    }
    func header(_ field: String) -> String? { field == "-" ? nil : unescape(field) }
    return Request(
      method: fields[0], path: unescape(fields[1]), status: status, bodyBytes: bytes,
      ifNoneMatch: header(fields[4]), ifModifiedSince: header(fields[5]))
  }

  /// nginx logs `"`, `\` and bytes outside printable ASCII as `\xHH`.
  static func unescape(_ field: String) -> String {
    var bytes: [UInt8] = []
    let utf8 = Array(field.utf8)
    var index = 0
    while index < utf8.count {
      if utf8[index] == UInt8(ascii: "\\"), index + 3 < utf8.count,
        utf8[index + 1] == UInt8(ascii: "x"),
        let value = UInt8(String(decoding: utf8[index + 2...index + 3], as: UTF8.self), radix: 16)
      {
        bytes.append(value)
        index += 4
      } else {
        bytes.append(utf8[index])
        index += 1
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

// http-client-bench: the measurement behind the choice of HTTP client (issue 22).
//
//   http-client-bench fetch --client curl|urlsession [--files N] [--concurrency C]
//     Starts nginx (TestFixtures' NginxServer) on loopback serving N files (links to the
//     fixture photos, in turn), then fetches all of them with C requests in flight and
//     prints one line: client, wall s, CPU s (user + system, getrusage), peak RSS MB,
//     bytes received, connections opened (curl only). nginx's start is not timed.
//   http-client-bench check-urlsession
//     Tries URLSession (FoundationNetworking) against the controls the issue requires,
//     on the misbehaving server, and prints what it did.
//
// Benchmarks/http-clients runs the first alternately for both clients and prints medians.
// URLSession lives here only; the library uses WebLoading (libcurl).

import Foundation
import FoundationNetworking
import Locking
import TestFixtures
import WebLoading

#if canImport(Glibc)
  import Glibc
#endif

struct Usage {
  var cpu: Double
  var peakMB: Double

  static func now() -> Usage {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let cpu =
      Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
      + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return Usage(cpu: cpu, peakMB: Double(usage.ru_maxrss) / 1024)
  }
}

func option(_ name: String, _ fallback: Int) -> Int {
  let arguments = CommandLine.arguments
  guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count,
    let value = Int(arguments[index + 1])
  else { return fallback }
  return value
}

func stringOption(_ name: String) -> String? {
  let arguments = CommandLine.arguments
  guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else {
    return nil
  }
  return arguments[index + 1]
}

/// A folder of `count` links to the fixture photos, in turn.
func makeFolder(count: Int) throws -> (URL, [String]) {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "http-client-bench-\(getpid())")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  let photos = Fixtures.keptPhotoNames
  var names: [String] = []
  for index in 0..<count {
    let photo = photos[index % photos.count]
    let name = String(format: "photo-%04d-", index) + photo
    try FileManager.default.createSymbolicLink(
      atPath: folder.appendingPathComponent(name).path,
      withDestinationPath: try Fixtures.path(photo))
    names.append(name)
  }
  return (folder, names)
}

/// Runs `fetch` for every index with `concurrency` in flight; the bytes received.
func fetchAll(
  count: Int, concurrency: Int, _ fetch: @escaping @Sendable (Int) async throws -> Int
) async throws -> Int {
  try await withThrowingTaskGroup(of: Int.self) { group in
    var next = 0
    var total = 0
    while next < min(concurrency, count) {
      let index = next
      group.addTask { try await fetch(index) }
      next += 1
    }
    while let bytes = try await group.next() {
      total += bytes
      if next < count {
        let index = next
        group.addTask { try await fetch(index) }
        next += 1
      }
    }
    return total
  }
}

func fetchCommand() async throws {
  let client = stringOption("--client") ?? "curl"
  let count = option("--files", 1000)
  let concurrency = option("--concurrency", 6)
  let (folder, names) = try makeFolder(count: count)
  defer { try? FileManager.default.removeItem(at: folder) }
  let server = try NginxServer.start(serving: folder)
  defer { server.stop() }
  let urls = names.map { server.url($0) }
  var connections = "-"
  let before = Usage.now()
  let start = ContinuousClock.now
  let bytes: Int
  switch client {
  case "curl":
    let http = HTTPClient(
      limits: HTTPLimits(connectionsPerHost: concurrency, totalConnections: concurrency))
    bytes = try await fetchAll(count: count, concurrency: concurrency) { index in
      try await http.get(urls[index]).body.count
    }
    connections = String(http.connectionsOpened)
  case "urlsession":
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = concurrency
    configuration.urlCache = nil
    let session = URLSession(configuration: configuration)
    bytes = try await fetchAll(count: count, concurrency: concurrency) { index in
      let (data, response) = try await session.data(from: urls[index])
      guard (response as? HTTPURLResponse)?.statusCode == 200 else {
        throw URLError(.badServerResponse)
      }
      return data.count
    }
    session.finishTasksAndInvalidate()
  default:
    fatalError("--client curl or urlsession")
  }
  let wall = ContinuousClock.now - start
  let after = Usage.now()
  let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
  print(
    client, String(format: "%.3f %.3f %.1f", seconds, after.cpu - before.cpu, after.peakMB),
    bytes, connections)
}

// MARK: - URLSession against the issue's controls

/// Collects a data task's bytes; cancels it past `limit`.
final class CuttingDelegate: NSObject, URLSessionDataDelegate, Sendable {
  let limit: Int
  let received = Lock(0)
  let declared = Lock<Int64?>(nil)
  let done = DispatchSemaphore(value: 0)
  let failure = Lock<String?>(nil)

  init(limit: Int) { self.limit = limit }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
  ) {
    declared.withLock { $0 = response.expectedContentLength }
    completionHandler(response.expectedContentLength > Int64(limit) ? .cancel : .allow)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    let total = received.withLock {
      $0 += data.count; return $0
    }
    if total > limit { dataTask.cancel() }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
    failure.withLock { $0 = error.map { "\($0)" } }
    done.signal()
  }
}

func timed(_ body: () async throws -> String) async -> String {
  let start = ContinuousClock.now
  var outcome: String
  do { outcome = try await body() } catch { outcome = "error: \(error)" }
  let elapsed = ContinuousClock.now - start
  let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  return String(format: "%.2f s: ", seconds) + outcome
}

func describe(_ data: Data, _ response: URLResponse) -> String {
  let status = (response as? HTTPURLResponse)?.statusCode ?? 0
  return "status \(status), \(data.count) bytes, final URL \(response.url?.path ?? "?")"
}

func checkURLSession() async throws {
  let server = try MisbehavingServer.start()
  defer { server.stop() }
  func session(_ configure: (URLSessionConfiguration) -> Void) -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configure(configuration)
    return URLSession(configuration: configuration)
  }
  // Idle: timeoutIntervalForRequest = 1 s on a body that stops after 1000 bytes.
  let idle = session { $0.timeoutIntervalForRequest = 1 }
  print("idle (timeoutIntervalForRequest 1 s, stall after 1000 bytes):")
  print(
    "  ",
    await timed {
      let (data, response) = try await idle.data(
        from: server.url("stall.jpg?after=1000&seconds=30"))
      return describe(data, response)
    })
  // The same on a body dripping a chunk every 0.25 s for 10 s: idle must not fire.
  print("idle (timeoutIntervalForRequest 1 s, a chunk every 0.25 s for 10 s):")
  print(
    "  ",
    await timed {
      let (data, response) = try await idle.data(from: server.url("slow.jpg?seconds=10&chunks=41"))
      return describe(data, response)
    })
  // Whole: timeoutIntervalForResource = 2 s on the same dripping body.
  let whole = session { $0.timeoutIntervalForResource = 2 }
  print("whole (timeoutIntervalForResource 2 s, a chunk every 0.25 s for 10 s):")
  print(
    "  ",
    await timed {
      let (data, response) = try await whole.data(from: server.url("slow.jpg?seconds=10&chunks=41"))
      return describe(data, response)
    })
  // Per-host limit: 2, and 6 requests of a 2 s body at once (2 s each if honoured: 6 s).
  let limited = session { $0.httpMaximumConnectionsPerHost = 2 }
  print("per-host limit (httpMaximumConnectionsPerHost 2, 6 requests of 2 s at once):")
  print(
    "  ",
    await timed {
      try await withThrowingTaskGroup(of: Int.self) { group in
        for index in 0..<6 {
          group.addTask {
            try await limited.data(from: server.url("slow.jpg?seconds=2&key=\(index)")).0.count
          }
        }
        var total = 0
        for try await count in group { total += count }
        return "\(total) bytes (honoured: about 6 s; 2 s means all 6 ran at once)"
      }
    })
  // Redirects: a chain of 6 (the issue allows 5), of 30, and a loop.
  let plain = session { _ in }
  for path in ["chain/6?key=a", "chain/30?key=b", "loop"] {
    print("redirects \(path):")
    print(
      "  ",
      await timed {
        let (data, response) = try await plain.data(from: server.url(path))
        return describe(data, response)
      })
  }
  // Size: no limit exists; a delegate may refuse the length and cut the body.
  print("size: an 8 GiB Content-Length, through a delegate that refuses over 100 MiB:")
  let refusing = CuttingDelegate(limit: 100 << 20)
  let delegated = URLSession(
    configuration: .ephemeral, delegate: refusing, delegateQueue: nil)
  delegated.dataTask(with: server.url("huge.jpg")).resume()
  refusing.done.wait()
  print(
    "   declared \(refusing.declared.withLock { $0 } ?? -1), received "
      + "\(refusing.received.withLock { $0 }), error \(refusing.failure.withLock { $0 } ?? "none")")
  print("size: no Content-Length, endless, through a delegate that cuts at 1 MiB:")
  let cutting = CuttingDelegate(limit: 1 << 20)
  let cutSession = URLSession(configuration: .ephemeral, delegate: cutting, delegateQueue: nil)
  cutSession.dataTask(with: server.url("nolength.jpg")).resume()
  cutting.done.wait()
  print(
    "   received \(cutting.received.withLock { $0 }), error "
      + "\(cutting.failure.withLock { $0 } ?? "none")")
  print("size: data(from:) on the endless body, its task cancelled after 3 s:")
  let endless = session { _ in }
  let start = ContinuousClock.now
  let task = Task { try await endless.data(from: server.url("nolength.jpg")).0.count }
  try await Task.sleep(for: .seconds(3))
  let cancelledAt = ContinuousClock.now - start
  let peakAtCancel = Usage.now().peakMB
  task.cancel()
  let outcome: String
  do { outcome = "\(try await task.value) bytes" } catch { outcome = "error \(error)" }
  print(
    "   cancelled at \(cancelledAt) (peak RSS \(String(format: "%.0f", peakAtCancel)) MB by then), "
      + "ended at \(ContinuousClock.now - start) with \(outcome); "
      + "peak RSS \(String(format: "%.0f", Usage.now().peakMB)) MB")
}

switch CommandLine.arguments.dropFirst().first {
case "fetch": try await fetchCommand()
case "check-urlsession": try await checkURLSession()
default:
  print("usage: http-client-bench fetch --client curl|urlsession [--files N] [--concurrency C]")
  print("       http-client-bench check-urlsession")
  exit(2)
}

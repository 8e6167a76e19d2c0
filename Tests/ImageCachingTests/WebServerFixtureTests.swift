import Foundation
import Testing

@testable import TestFixtures

#if canImport(Glibc)
  import Glibc
#endif

/// The test web servers themselves (TestFixtures' NginxServer and MisbehavingServer),
/// checked with RawHTTP's plain sockets, so that the tests of the HTTP source can trust
/// what they serve.
@Suite struct NginxServerTests {
  private static let photos = Fixtures.folder.appendingPathComponent("photos")

  @Test func servesAFixtureByteForByteWithAStrongETag() async throws {
    let bytes = try Fixtures.bytes("rocket.jpg")
    let response = try await onOwnThread {
      let server = try NginxServer.start(serving: Self.photos)
      defer { server.stop() }
      return try RawHTTP.get(server.url("rocket.jpg"))
    }
    #expect(response.status == 200)
    #expect(response.end == .complete)
    #expect(response.body == bytes)
    #expect(response.header("Content-Type") == "image/jpeg")
    #expect(response.header("Content-Length") == "\(bytes.count)")
    #expect(response.header("Last-Modified") != nil)
    let etag = try #require(response.header("ETag"))
    #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
  }

  @Test func ifNoneMatchGetsA304WithNoBodyAndTheLogShowsIt() async throws {
    let bytes = try Fixtures.bytes("hubble.jpg")
    let (first, second, log) = try await onOwnThread {
      let server = try NginxServer.start(serving: Self.photos)
      defer { server.stop() }
      let first = try RawHTTP.get(server.url("hubble.jpg"))
      let etag = first.header("ETag") ?? ""
      let second = try RawHTTP.get(server.url("hubble.jpg"), headers: ["If-None-Match": etag])
      return (first, second, server.accessLog(waitingFor: 2))
    }
    let etag = try #require(first.header("ETag"))
    #expect(second.status == 304)
    #expect(second.body.isEmpty)
    #expect(second.header("ETag") == etag)
    #expect(
      log == [
        NginxServer.Request(
          method: "GET", path: "/hubble.jpg", status: 200, bodyBytes: bytes.count),
        NginxServer.Request(
          method: "GET", path: "/hubble.jpg", status: 304, bodyBytes: 0, ifNoneMatch: etag),
      ])
  }

  @Test func ifModifiedSinceGetsA304AndTheLogRecordsTheHeader() async throws {
    let (first, second, log) = try await onOwnThread {
      let server = try NginxServer.start(serving: Self.photos)
      defer { server.stop() }
      let first = try RawHTTP.get(server.url("coffee.png?v=1"))
      let modified = first.header("Last-Modified") ?? ""
      let second = try RawHTTP.get(
        server.url("coffee.png?v=1"), headers: ["If-Modified-Since": modified])
      return (first, second, server.accessLog(waitingFor: 2))
    }
    let modified = try #require(first.header("Last-Modified"))
    #expect(first.header("Content-Type") == "image/png")
    #expect(second.status == 304)
    #expect(log.map(\.status) == [200, 304])
    #expect(log.map(\.path) == ["/coffee.png?v=1", "/coffee.png?v=1"])
    #expect(log.last?.ifModifiedSince == modified)
    #expect(log.last?.ifNoneMatch == nil)
    #expect(log.last?.bodyBytes == 0)
  }

  @Test func keepsAConnectionOpenForTheNextRequest() async throws {
    let rocket = try Fixtures.bytes("rocket.jpg")
    let retina = try Fixtures.bytes("retina.jpg")
    let (first, second, closed) = try await onOwnThread {
      let server = try NginxServer.start(serving: Self.photos)
      defer { server.stop() }
      let connection = try RawHTTP.Connection(port: server.port)
      defer { connection.close() }
      let first = try connection.get("/rocket.jpg")
      let second = try connection.get("/retina.jpg")
      return (first, second, connection.isClosedByServer)
    }
    #expect(first.body == rocket)
    #expect(second.body == retina)
    #expect(first.header("Connection") == "keep-alive")
    #expect(!closed)
  }

  @Test func servesAFolderOnlyItsOwnerMayEnter() async throws {
    let folder = try Fixtures.temporaryFolder().appendingPathComponent("private")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: Fixtures.photo("chelsea.png"),
      toPath: folder.appendingPathComponent("chelsea.png").path)
    #expect(chmod(folder.path, 0o700) == 0)
    #expect(chmod(folder.appendingPathComponent("chelsea.png").path, 0o600) == 0)
    let response = try await onOwnThread {
      let server = try NginxServer.start(serving: folder)
      defer { server.stop() }
      return try RawHTTP.get(server.url("chelsea.png"))
    }
    #expect(response.status == 200)
    #expect(response.body == (try Fixtures.bytes("chelsea.png")))
  }

  @Test func aPortTakenBeforeNginxBindsItIsLeftForAnother() async throws {
    let (taken, port, tried, response) = try await onOwnThread {
      // A port someone else listens on, as when another process wins the race for it.
      let listener = try #require(LoopbackPort.boundSocket())
      defer { close(listener.descriptor) }
      #expect(listen(listener.descriptor, 1) == 0)
      var tried: [Int] = []
      let server = try NginxServer.start(serving: Self.photos, workers: 1) {
        let port = tried.isEmpty ? listener.port : LoopbackPort.free()
        if let port { tried.append(port) }
        return port
      }
      defer { server.stop() }
      return (listener.port, server.port, tried, try RawHTTP.get(server.url("rocket.jpg")))
    }
    #expect(tried.count == 2)
    #expect(tried.first == taken)
    #expect(port == tried.last)
    #expect(response.body == (try Fixtures.bytes("rocket.jpg")))
  }

  @Test func aMissingFileIsA404() async throws {
    let (response, log) = try await onOwnThread {
      let server = try NginxServer.start(serving: Self.photos)
      defer { server.stop() }
      return (try RawHTTP.get(server.url("nothing.jpg")), server.accessLog(waitingFor: 1))
    }
    #expect(response.status == 404)
    #expect(log.map(\.status) == [404])
  }

  @Test func stopEndsNginxAndItsPort() async throws {
    let (port, pid, error) = try await onOwnThread {
      let server = try NginxServer.start(serving: Self.photos)
      let pidText = try String(
        contentsOf: server.folder.appendingPathComponent("nginx.pid"), encoding: .utf8)
      server.stop()
      return (
        server.port, Int32(pidText.trimmingCharacters(in: .whitespacesAndNewlines)),
        Swift.Result { try RawHTTP.get(server.url("rocket.jpg")) }
      )
    }
    let master = try #require(pid)
    #expect(kill(master, 0) == -1 && errno == ESRCH)
    #expect(
      throws: RawHTTPError.connectFailed(
        host: "127.0.0.1", port: port, reason: "Connection refused")
    ) {
      try error.get()
    }
  }
}

@Suite struct MisbehavingServerTests {
  private static let rocket = Result { try Fixtures.bytes("rocket.jpg") }

  /// Runs `body` against a fresh server on a thread of its own.
  private func withServer<Value: Sendable>(
    _ body: @escaping @Sendable (MisbehavingServer) throws -> Value
  ) async throws -> Value {
    try await onOwnThread {
      let server = try MisbehavingServer.start()
      defer { server.stop() }
      return try body(server)
    }
  }

  @Test(arguments: Fixtures.keptPhotoNames)
  func servesEveryKeptPhotoNormally(name: String) async throws {
    let response = try await withServer { try RawHTTP.get($0.url("photos/\(name)")) }
    #expect(response.status == 200)
    #expect(response.end == .complete)
    #expect(response.body == (try Fixtures.bytes(name)))
    #expect(
      response.header("Content-Type") == (name.hasSuffix(".png") ? "image/png" : "image/jpeg"))
  }

  @Test func stallSendsTheHeadersThenNothing() async throws {
    let rocket = try Self.rocket.get()
    // Each read waits 1.5 s: time for a busy machine's headers; the server then sends
    // nothing for 600 s.
    let (silent, some) = try await withServer { server in
      (
        try RawHTTP.get(server.url("stall.jpg"), timeout: .milliseconds(1500)),
        try RawHTTP.get(server.url("stall.jpg?after=1000"), timeout: .milliseconds(1500))
      )
    }
    #expect(silent.status == 200)
    #expect(silent.header("Content-Length") == "\(rocket.count)")
    #expect(silent.body.isEmpty)
    #expect(silent.end == .timedOut)
    #expect(some.body == Array(rocket[..<1000]))
    #expect(some.end == .timedOut)
  }

  @Test func shortSendsHalfOfItsContentLengthThenCloses() async throws {
    let rocket = try Self.rocket.get()
    let response = try await withServer { try RawHTTP.get($0.url("short.jpg")) }
    #expect(response.header("Content-Length") == "\(rocket.count)")
    #expect(response.body == Array(rocket[..<(rocket.count / 2)]))
    #expect(response.end == .closedEarly)
  }

  @Test func hugeAnnouncesEightGigabytes() async throws {
    let rocket = try Self.rocket.get()
    let response = try await withServer {
      try RawHTTP.get($0.url("huge.jpg"), maximumBody: 1 << 20)
    }
    #expect(response.status == 200)
    #expect(response.header("Content-Length") == "8589934592")
    #expect(response.body.count == 1 << 20)
    #expect(Array(response.body[..<rocket.count]) == rocket)
    #expect(response.end == .bodyLimit)
  }

  @Test func nolengthSendsNoLengthAndNoEnd() async throws {
    let rocket = try Self.rocket.get()
    let response = try await withServer {
      try RawHTTP.get($0.url("nolength.jpg"), maximumBody: 4 << 20)
    }
    #expect(response.status == 200)
    #expect(response.header("Content-Length") == nil)
    #expect(response.header("Transfer-Encoding") == nil)
    #expect(response.body.count == 4 << 20)
    #expect(Array(response.body[..<rocket.count]) == rocket)
    #expect(response.end == .bodyLimit)
  }

  @Test func pageIsAnHTMLPageWithStatus200() async throws {
    let response = try await withServer { try RawHTTP.get($0.url("page.jpg")) }
    let text = String(decoding: response.body, as: UTF8.self)
    #expect(response.status == 200)
    #expect(response.header("Content-Type") == "text/html; charset=utf-8")
    #expect(text.hasPrefix("<!DOCTYPE html>"))
    #expect(text.contains("<title>404 Not Found</title>"))
  }

  @Test func loopRedirectsBackAndForth() async throws {
    let (loop, loop2) = try await withServer {
      (try RawHTTP.get($0.url("loop")), try RawHTTP.get($0.url("loop2")))
    }
    #expect(loop.status == 302)
    #expect(loop.header("Location") == "/loop2")
    #expect(loop2.status == 302)
    #expect(loop2.header("Location") == "/loop")
  }

  @Test func chainRedirectsNTimesThenServesThePhoto() async throws {
    let rocket = try Self.rocket.get()
    let (locations, last) = try await withServer { server in
      var locations: [String] = []
      var response = try RawHTTP.get(server.url("chain/3"))
      while response.status == 302, let location = response.header("Location"),
        locations.count < 10
      {
        locations.append(location)
        response = try RawHTTP.get(server.url(location))
      }
      return (locations, response)
    }
    #expect(locations == ["/chain/2", "/chain/1", "/chain/0"])
    #expect(last.status == 200)
    #expect(last.body == rocket)
  }

  @Test func flakyFailsKTimesThenServesAndCountsEachTarget() async throws {
    let rocket = try Self.rocket.get()
    let (statuses, last, counts) = try await withServer { server in
      let target = "flaky.jpg?fail=2&key=\(UUID().uuidString)"
      var statuses: [Int] = []
      for _ in 0..<3 { statuses.append(try RawHTTP.get(server.url(target)).status) }
      let last = try RawHTTP.get(server.url(target))
      let other = "flaky.jpg?fail=1&key=other"
      let otherStatus = try RawHTTP.get(server.url(other)).status
      return (
        statuses + [otherStatus], last,
        [
          try server.requestCount(target), try server.requestCount("/" + other),
          try server.requestCount("flaky.jpg"),
        ]
      )
    }
    #expect(statuses == [500, 500, 200, 500])
    #expect(last.body == rocket)
    #expect(counts == [4, 1, 0])
  }

  @Test func missingIsA404() async throws {
    let response = try await withServer { try RawHTTP.get($0.url("missing.jpg")) }
    #expect(response.status == 404)
    #expect(String(decoding: response.body, as: UTF8.self).contains("404 Not Found"))
  }

  @Test func pngAsJPEGSendsAPNGLabelledImageJPEG() async throws {
    let response = try await withServer { try RawHTTP.get($0.url("png-as-jpeg.jpg")) }
    #expect(response.header("Content-Type") == "image/jpeg")
    #expect(response.body == (try Fixtures.bytes("coffee.png")))
    #expect(Array(response.body.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
  }

  @Test func slowDripsThePhotoWhole() async throws {
    let rocket = try Self.rocket.get()
    let response = try await withServer {
      try RawHTTP.get($0.url("slow.jpg?seconds=0.2&chunks=4"))
    }
    #expect(response.header("Content-Length") == "\(rocket.count)")
    #expect(response.body == rocket)
    #expect(response.end == .complete)
  }

  @Test func photoChoosesTheBody() async throws {
    let response = try await withServer { try RawHTTP.get($0.url("short.jpg?photo=hubble.jpg")) }
    let hubble = try Fixtures.bytes("hubble.jpg")
    #expect(response.header("Content-Length") == "\(hubble.count)")
    #expect(response.body == Array(hubble[..<(hubble.count / 2)]))
  }

  @Test func theRefusedURLRefuses() async throws {
    let url = MisbehavingServer.refusedURL()
    let port = try #require(url.port)
    #expect(url == MisbehavingServer.refusedURL())
    #expect(
      throws: RawHTTPError.connectFailed(
        host: "127.0.0.1", port: port, reason: "Connection refused")
    ) {
      try RawHTTP.get(url, timeout: .seconds(1))
    }
  }

  @Test func stopEndsTheServerAndItsPort() async throws {
    let (port, result) = try await onOwnThread {
      let server = try MisbehavingServer.start()
      server.stop()
      return (server.port, Swift.Result { try RawHTTP.get(server.url("photos/rocket.jpg")) })
    }
    #expect(
      throws: RawHTTPError.connectFailed(
        host: "127.0.0.1", port: port, reason: "Connection refused")
    ) {
      try result.get()
    }
  }
}

/// The servers end with the process that started them, however it ends: here a parent
/// that starts them as the fixtures do (standard input a pipe only the parent holds) is
/// killed with SIGKILL, as a crashed or killed test process would be.
@Suite struct WebServersEndWithTheirParentTests {
  @Test func theMisbehavingServerEndsWhenItsParentIsKilled() async throws {
    let server = try await onOwnThread {
      try Self.killParentOf([Python.script("misbehaving_server.py")], waitingFor: nil).0
    }
    #expect(try await onOwnThread { Self.waitUntilGone(server) })
  }

  @Test func nginxEndsWhenItsParentIsKilled() async throws {
    let folder = try Fixtures.temporaryFolder()
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("temp"), withIntermediateDirectories: true)
    let port = try #require(LoopbackPort.free())
    let config = folder.appendingPathComponent("nginx.conf")
    try NginxServer.configuration(
      root: Fixtures.folder.appendingPathComponent("photos"), folder: folder, port: port,
      workers: 1
    ).write(to: config, atomically: true, encoding: .utf8)
    let pidFile = folder.appendingPathComponent("nginx.pid")
    let arguments = [
      Python.script("watchdog.py"), NginxServer.executable.path, "-p", folder.path + "/", "-c",
      config.path, "-e", folder.appendingPathComponent("error.log").path,
    ]
    // The parent reads the pid file before it is killed: nginx removes it as it stops.
    let (watchdog, master) = try await onOwnThread {
      try Self.killParentOf(arguments, waitingFor: pidFile)
    }
    let masterPID = try #require(master)
    #expect(try await onOwnThread { Self.waitUntilGone(masterPID) })
    #expect(try await onOwnThread { Self.waitUntilGone(watchdog) })
    #expect(!LoopbackPort.accepts(port))
  }

  /// Starts a Python parent that starts `python3 arguments` with a pipe as its standard
  /// input, waits for `file` to hold a line (or for the child's first line of output),
  /// then kills the parent with SIGKILL and returns the child's pid and the number in
  /// `file` (read by the parent before it is killed).
  private static func killParentOf(_ arguments: [String], waitingFor file: URL?) throws -> (
    Int32, Int32?
  ) {
    let parentScript = """
      import os, subprocess, sys, time
      child = subprocess.Popen([sys.executable] + sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
      found = ""
      if sys.argv[1]:
          while not found.endswith("\\n"):
              time.sleep(0.01)
              try:
                  found = open(sys.argv[1]).read()
              except OSError:
                  found = ""
      else:
          child.stdout.readline()
      print(child.pid, found.strip(), flush=True)
      time.sleep(600)
      """
    let parent = Process()
    parent.executableURL = try Python.executable()
    parent.arguments = ["-c", parentScript, file?.path ?? ""] + arguments
    let output = Pipe()
    parent.standardOutput = output
    try parent.run()
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while read(output.fileHandleForReading.fileDescriptor, &byte, 1) == 1, byte != 10 {
      line.append(byte)
    }
    kill(parent.processIdentifier, SIGKILL)
    parent.waitUntilExit()
    let fields = String(decoding: line, as: UTF8.self).split(separator: " ")
    let child = try #require(fields.first.flatMap { Int32($0) })
    return (child, fields.dropFirst().first.flatMap { Int32($0) })
  }

  /// Whether `pid` is gone (or a zombie nobody has reaped yet) within 15 s.
  private static func waitUntilGone(_ pid: Int32) -> Bool {
    let deadline = ContinuousClock.now + .seconds(15)
    while ContinuousClock.now < deadline {
      if kill(pid, 0) != 0 && errno == ESRCH { return true }
      let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
      if let close = stat.lastIndex(of: ")"),
        stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
      {
        return true
      }
      usleep(10_000)
    }
    return false
  }
}

import Foundation
import TestFixtures
import Testing
import WebLoading

/// Every way the misbehaving server misbehaves, each ending with its own exact error (or
/// its success), with the requests it took counted by the server.
@Suite struct MisbehavingServerTests {
  /// Short limits, so that each case ends soon: 5 s idle (the stall's own test 1 s),
  /// retries 10 ms apart.
  private static let limits = HTTPLimits(
    idleTimeout: .seconds(5), requestTimeout: .seconds(60), retries: 2,
    retryDelay: .milliseconds(10))

  private static func count(_ path: String, on server: MisbehavingServer) async throws -> Int {
    try await onOwnThread { try server.requestCount(path) }
  }

  /// The error `get` threw, or nil when it answered.
  private static func failure(
    _ client: HTTPClient, _ url: URL, progress: ProgressLog? = nil,
    inspect: (@Sendable ([UInt8]) -> HTTPInspection)? = nil
  ) async -> HTTPError? {
    await WebLoadingTests.failure { () async throws(HTTPError) in
      try await client.get(url, progress: progress?.record, inspect: inspect)
    }
  }

  @Test func aStallAfterTheHeadersEndsWithTheIdleTimeout() async throws {
    try await withMisbehavingServer { server async throws in
      var limits = Self.limits
      limits.idleTimeout = .seconds(1)
      let client = HTTPClient(limits: limits)
      let path = "stall.jpg?after=1000&key=\(UUID())"
      let progress = ProgressLog()
      let error = await Self.failure(client, server.url(path), progress: progress)
      #expect(
        error
          == .timedOut(url: server.url(path).absoluteString, phase: .idle, seconds: 1, attempts: 3))
      #expect(try await Self.count(path, on: server) == 3)
      #expect(progress.steps.last?.bytesReceived == 1000)
    }
  }

  @Test func aWholeAttemptOverItsCeilingEndsWithTheRequestTimeout() async throws {
    try await withMisbehavingServer { server async throws in
      var limits = Self.limits
      limits.requestTimeout = .seconds(1)
      limits.retries = 0
      let client = HTTPClient(limits: limits)
      // Bytes every 0.25 s, so never idle for 5 s, but 20 s in all.
      let path = "slow.jpg?seconds=20&chunks=81&key=\(UUID())"
      let error = await Self.failure(client, server.url(path))
      #expect(
        error
          == .timedOut(
            url: server.url(path).absoluteString, phase: .request, seconds: 1, attempts: 1))
    }
  }

  @Test func aBodyCutShortFailsAfterItsRetries() async throws {
    try await withMisbehavingServer { server async throws in
      let client = HTTPClient(limits: Self.limits)
      let photo = Int64(try Fixtures.bytes("rocket.jpg").count)
      let path = "short.jpg?key=\(UUID())"
      let error = await Self.failure(client, server.url(path))
      #expect(
        error
          == .cutShort(
            url: server.url(path).absoluteString, received: photo / 2, expected: photo,
            attempts: 3))
      #expect(try await Self.count(path, on: server) == 3)
    }
  }

  @Test func gigabytesDeclaredAreRefusedBeforeTheBody() async throws {
    try await withMisbehavingServer { server async throws in
      let client = HTTPClient(limits: Self.limits)
      let path = "huge.jpg?key=\(UUID())"
      let progress = ProgressLog()
      let error = await Self.failure(client, server.url(path), progress: progress)
      #expect(
        error
          == .tooLarge(
            url: server.url(path).absoluteString, limit: 100 << 20, declared: 8 << 30))
      #expect(progress.steps.isEmpty)  // not one byte of the body was taken
      #expect(try await Self.count(path, on: server) == 1)  // not retried
    }
  }

  @Test func anEndlessBodyIsCutAtTheLimit() async throws {
    try await withMisbehavingServer { server async throws in
      var limits = Self.limits
      limits.maximumBytes = 1 << 20
      let client = HTTPClient(limits: limits)
      let path = "nolength.jpg?key=\(UUID())"
      let progress = ProgressLog()
      let error = await Self.failure(client, server.url(path), progress: progress)
      #expect(
        error == .tooLarge(url: server.url(path).absoluteString, limit: 1 << 20, declared: nil))
      let last = try #require(progress.steps.last)
      #expect(last.bytesReceived <= 1 << 20)
      #expect(last.bytesReceived > (1 << 20) - (64 << 10))  // cut within the chunk that passed
      #expect(last.bytesExpected == nil)
      #expect(try await Self.count(path, on: server) == 1)
    }
  }

  @Test func aRedirectLoopIsNamedWithItsChain() async throws {
    try await withMisbehavingServer { server async throws in
      let client = HTTPClient(limits: Self.limits)
      let error = await Self.failure(client, server.url("loop"))
      #expect(
        error
          == .redirectLoop(
            url: server.url("loop").absoluteString,
            chain: [
              server.url("loop").absoluteString, server.url("loop2").absoluteString,
              server.url("loop").absoluteString,
            ]))
      #expect(error?.description.contains("redirect loop") == true)
    }
  }

  @Test func sixRedirectsAreTooMany() async throws {
    try await withMisbehavingServer { server async throws in
      let client = HTTPClient(limits: Self.limits)
      let path = "chain/6?key=\(UUID())"
      let error = await Self.failure(client, server.url(path))
      #expect(error == .tooManyRedirects(url: server.url(path).absoluteString, limit: 5))
    }
  }

  @Test func fiveRedirectsArrive() async throws {
    try await withMisbehavingServer { server async throws in
      let client = HTTPClient(limits: Self.limits)
      let key = UUID()
      let response = try await client.get(server.url("chain/5?key=\(key)"))
      #expect(response.status == 200)
      #expect(response.body == (try Fixtures.bytes("rocket.jpg")))
      #expect(response.url == server.url("chain/5?key=\(key)"))
      #expect(response.finalURL == server.url("chain/0?key=\(key)"))
      for hop in 0...5 { #expect(try await Self.count("chain/\(hop)?key=\(key)", on: server) == 1) }
    }
  }

  @Test func aServerErrorThatRecoversSucceedsOnRetry() async throws {
    try await withMisbehavingServer { server async throws in
      let client = HTTPClient(limits: Self.limits)
      let path = "flaky.jpg?fail=2&key=\(UUID())"
      let response = try await client.get(server.url(path))
      #expect(response.status == 200)
      #expect(response.body == (try Fixtures.bytes("rocket.jpg")))
      #expect(try await Self.count(path, on: server) == 3)
    }
  }

  @Test func aServerErrorThatStaysFailsAfterItsRetries() async throws {
    try await withMisbehavingServer { server async throws in
      let client = HTTPClient(limits: Self.limits)
      let path = "flaky.jpg?fail=5&key=\(UUID())"
      let error = await Self.failure(client, server.url(path))
      #expect(error == .status(url: server.url(path).absoluteString, code: 500, attempts: 3))
      #expect(try await Self.count(path, on: server) == 3)
    }
  }

  @Test func aMissingPhotoIs404AtOnce() async throws {
    try await withMisbehavingServer { server async throws in
      let client = HTTPClient(limits: Self.limits)
      let path = "missing.jpg?key=\(UUID())"
      let error = await Self.failure(client, server.url(path))
      #expect(error == .status(url: server.url(path).absoluteString, code: 404, attempts: 1))
      #expect(
        error?.description
          == "\(server.url(path).absoluteString): the server answered 404 Not Found")
      #expect(try await Self.count(path, on: server) == 1)
    }
  }

  @Test func aRefusedPortFailsAfterItsRetries() async throws {
    let client = HTTPClient(limits: Self.limits)
    let url = MisbehavingServer.refusedURL()
    let error = await Self.failure(client, url)
    guard case .connectionFailed(let failed, let message, let attempts) = error else {
      Issue.record("expected connectionFailed, got \(String(describing: error))")
      return
    }
    #expect(failed == url.absoluteString)
    #expect(message.contains("Couldn't connect to server"), "\(message)")
    #expect(attempts == 3)
    #expect(client.attemptsStarted == 3)
  }

  @Test func anInspectionThatRejectsStopsTheDownload() async throws {
    try await withMisbehavingServer { server async throws in
      let client = HTTPClient(limits: Self.limits)
      let seen = ProgressLog()
      let error = await Self.failure(client, server.url("page.jpg"), progress: seen) { bytes in
        if bytes.count < 9 { return .needMore }
        return bytes.starts(with: Array("<!DOCTYPE".utf8)) ? .reject("an HTML page") : .accept
      }
      #expect(
        error == .rejected(url: server.url("page.jpg").absoluteString, reason: "an HTML page"))
      #expect(try await Self.count("page.jpg", on: server) == 1)
    }
  }

  @Test func anInspectionSeesTheBytesUntilItAccepts() async throws {
    try await withMisbehavingServer { server async throws in
      let client = HTTPClient(limits: Self.limits)
      let calls = ProgressLog()
      let photo = try Fixtures.bytes("rocket.jpg")
      // 20 chunks: the inspection asks for more twice, then accepts and is called no more.
      let response = try await client.get(
        server.url("slow.jpg?seconds=0.4&chunks=20"),
        inspect: { bytes in
          calls.record(TransferProgress(bytesReceived: Int64(bytes.count), bytesExpected: nil))
          #expect(Array(photo.prefix(bytes.count)) == bytes)
          return calls.steps.count < 3 ? .needMore : .accept
        })
      #expect(response.body == photo)
      #expect(calls.steps.count == 3)
    }
  }

  @Test func aPNGSentAsJPEGArrivesAsItsBytes() async throws {
    try await withMisbehavingServer { server async throws in
      let response = try await HTTPClient(limits: Self.limits).get(server.url("png-as-jpeg.jpg"))
      #expect(response.contentType == "image/jpeg")
      #expect(response.body == (try Fixtures.bytes("coffee.png")))
    }
  }
}

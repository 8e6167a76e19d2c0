import Foundation
import Locking
import TestFixtures
import Testing
import WebLoading

/// The client against Debian's nginx on loopback, serving the fixture photos: whole
/// bodies, validators, conditional requests and kept-alive connections.
@Suite struct NginxTests {
  private static let photos = Fixtures.folder.appendingPathComponent("photos")

  @Test func aPhotoArrivesByteForByteWithItsValidators() async throws {
    try await withNginx(serving: Self.photos) { server async throws in
      let file = try Fixtures.bytes("rocket.jpg")
      let seen = try await onOwnThread { try RawHTTP.get(server.url("rocket.jpg")) }
      let progress = ProgressLog()
      let response = try await HTTPClient().get(server.url("rocket.jpg"), progress: progress.record)
      #expect(response.status == 200)
      #expect(response.body == file)
      #expect(response.contentType == "image/jpeg")
      #expect(response.url == server.url("rocket.jpg"))
      #expect(response.finalURL == server.url("rocket.jpg"))
      let etag = try #require(seen.header("ETag"))
      #expect(response.headers["etag"] == etag)
      #expect(
        response.validators
          == HTTPValidators(
            etag: etag, lastModified: seen.header("Last-Modified"), length: Int64(file.count)))
      #expect(response.validators.sourceVersion == "etag:\(etag)")
      let steps = progress.steps
      #expect(
        steps.last
          == TransferProgress(bytesReceived: Int64(file.count), bytesExpected: Int64(file.count)))
      #expect(steps.map(\.bytesReceived) == steps.map(\.bytesReceived).sorted())
      #expect(try await log(of: server, count: 2).last?.bodyBytes == file.count)
    }
  }

  @Test func anUnchangedPhotoAnswers304WithNoBody() async throws {
    try await withNginx(serving: Self.photos) { server async throws in
      let client = HTTPClient()
      let first = try await client.get(server.url("hubble.jpg"))
      let etag = try #require(first.validators.etag)
      let again = try await client.get(server.url("hubble.jpg"), validators: first.validators)
      #expect(again.status == 304)
      #expect(again.isNotModified)
      #expect(again.body.isEmpty)
      #expect(again.validators.etag == etag)
      #expect(again.validators.sourceVersion == first.validators.sourceVersion)
      // The date alone asks the same.
      let byDate = HTTPValidators(
        etag: nil, lastModified: first.validators.lastModified, length: first.validators.length)
      let dated = try await client.get(server.url("hubble.jpg"), validators: byDate)
      #expect(dated.status == 304)
      #expect(dated.body.isEmpty)
      let log = try await log(of: server, count: 3)
      #expect(log.map(\.status) == [200, 304, 304])
      #expect(log.map(\.bodyBytes) == [first.body.count, 0, 0])
      #expect(log[1].ifNoneMatch == etag)
      #expect(log[2].ifNoneMatch == nil)
      #expect(log[2].ifModifiedSince == first.validators.lastModified)
    }
  }

  @Test func aChangedPhotoIsDownloadedAgain() async throws {
    try await withNginx(serving: Self.photos) { server async throws in
      let client = HTTPClient()
      let stale = HTTPValidators(etag: "\"0-0\"", lastModified: nil, length: nil)
      let response = try await client.get(server.url("retina.jpg"), validators: stale)
      #expect(response.status == 200)
      #expect(response.body == (try Fixtures.bytes("retina.jpg")))
      #expect(try await log(of: server, count: 1).map(\.ifNoneMatch) == ["\"0-0\""])
    }
  }

  @Test func requestsOneAfterAnotherShareOneConnection() async throws {
    try await withNginx(serving: Self.photos) { server async throws in
      let client = HTTPClient()
      for _ in 0..<20 {
        #expect(try await client.get(server.url("coffee.png")).status == 200)
      }
      #expect(client.connectionsOpened == 1)
      #expect(try await log(of: server, count: 20).count == 20)
    }
  }

  @Test func twentyAtOnceToOneHostOpenAtMostSixConnections() async throws {
    try await withNginx(serving: Self.photos) { server async throws in
      let client = HTTPClient()
      let names = Fixtures.keptPhotoNames
      let bodies = try await withThrowingTaskGroup(of: (String, [UInt8]).self) { group in
        for index in 0..<20 {
          let name = names[index % names.count]
          group.addTask { (name, try await client.get(server.url(name)).body) }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      #expect(bodies.count == 20)
      for (name, body) in bodies { #expect(body == (try Fixtures.bytes(name)), "\(name)") }
      #expect(client.connectionsOpened <= 6)
      #expect(client.mostConcurrentRequestsToOneHost <= 6)
      // Twenty more reuse those connections: none is opened.
      let opened = client.connectionsOpened
      for index in 0..<20 { _ = try await client.get(server.url(names[index % names.count])) }
      #expect(client.connectionsOpened == opened)
    }
  }
}

/// nginx's access log once it has `count` lines (read on a thread of its own: it waits).
func log(of server: NginxServer, count: Int) async throws -> [NginxServer.Request] {
  try await onOwnThread { server.accessLog(waitingFor: count) }
}

/// The progress a request reported, in order.
final class ProgressLog: Sendable {
  private let log = Lock<[TransferProgress]>([])

  var steps: [TransferProgress] { log.withLock { $0 } }

  var record: @Sendable (TransferProgress) -> Void {
    { [log] step in log.withLock { $0.append(step) } }
  }
}

extension NginxTests {
  @Test func twoHundredQueuedAtOnceAllArrive() async throws {
    try await withNginx(serving: Self.photos) { server async throws in
      let client = HTTPClient()
      let names = Fixtures.keptPhotoNames
      let files = try Dictionary(uniqueKeysWithValues: names.map { ($0, try Fixtures.bytes($0)) })
      let bodies = try await withThrowingTaskGroup(of: (String, [UInt8]).self) { group in
        for index in 0..<200 {
          let name = names[index % names.count]
          group.addTask { (name, try await client.get(server.url(name)).body) }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      #expect(bodies.count == 200)
      #expect(bodies.allSatisfy { files[$0.0] == $0.1 })
      #expect(client.attemptsStarted == 200)
      #expect(client.connectionsOpened <= 6)
      #expect(client.mostConcurrentRequestsToOneHost <= 6)
      #expect(try await log(of: server, count: 200).filter { $0.status == 200 }.count == 200)
    }
  }
}

import Foundation
import TestFixtures
import Testing

/// The test web servers themselves (TestFixtures' NginxServer and MisbehavingServer),
/// checked with RawHTTP's plain sockets, so that the tests of the HTTP source can trust them.
@Suite struct WebServerFixtureTests {
  private static let photos = Fixtures.folder.appendingPathComponent("photos")

  @Test func nginxServesAFixtureByteForByteWithAnETag() async throws {
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
    let etag = try #require(response.header("ETag"))
    #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"))
  }
}

extension WebServerFixtureTests {
  @Test func misbehavingServerServesPhotosAndCountsRequests() async throws {
    let bytes = try Fixtures.bytes("hubble.jpg")
    let (response, count) = try await onOwnThread {
      let server = try MisbehavingServer.start()
      defer { server.stop() }
      let response = try RawHTTP.get(server.url("photos/hubble.jpg"))
      return (response, try server.requestCount("photos/hubble.jpg"))
    }
    #expect(response.status == 200)
    #expect(response.body == bytes)
    #expect(count == 1)
  }
}

import Foundation
import ImageTables
import Locking
import TestFixtures
import Testing
import Vips
import WebLoading

@testable import ImageCaching

/// The HTTP source against real servers: nginx serving the fixture photos, and the
/// misbehaving server of TestFixtures.
@Suite("HTTP sources")
struct HTTPSourceLoaderTests {
  private static let photos = Fixtures.folder.appendingPathComponent("photos")

  private static func nginx() async throws -> NginxServer {
    try await onOwnThread { try NginxServer.start(serving: photos) }
  }

  private static func misbehaving() async throws -> MisbehavingServer {
    try await onOwnThread { try MisbehavingServer.start() }
  }

  @Test func aPhotoIsDownloadedWithItsETagAsVersionAndAskedAgainConditionally() async throws {
    let server = try await Self.nginx()
    defer { server.stop() }
    let loader = HTTPSourceLoader()
    let url = server.url("hubble.jpg")
    let received = Lock<[LoadProgress]>([])
    let first = try await loader.fetch(
      url, progress: { progress in received.withLock { $0.append(progress) } })
    guard case .fetched(let bytes, let version) = first else {
      Issue.record("expected the body, got \(first)")
      return
    }
    #expect(bytes == (try Fixtures.bytes("hubble.jpg")))
    #expect(version.hasPrefix("etag:\""))
    // Progress came in order and ended at the whole length.
    let reports = received.withLock { $0 }
    #expect(reports.last == LoadProgress(bytesReceived: 527_940, bytesExpected: 527_940))
    #expect(reports.map(\.bytesReceived) == reports.map(\.bytesReceived).sorted())
    // The version's validators make the next request conditional: 304, no body.
    let again = try await loader.fetch(url, validators: HTTPValidators(sourceVersion: version))
    #expect(again == .notModified)
    let log = server.accessLog(waitingFor: 2)
    #expect(log.map(\.status) == [200, 304])
    #expect(log.map(\.bodyBytes) == [527_940, 0])
    #expect(log.last?.ifNoneMatch == String(version.dropFirst("etag:".count)))
  }

  @Test func anHTMLPageIsNamedWithItsContentType() async throws {
    let server = try await Self.misbehaving()
    defer { server.stop() }
    let url = server.url("page.jpg")
    await #expect(
      throws: HTTPSourceError.notAnImage(
        url: url.absoluteString, contentType: "text/html; charset=utf-8", isHTML: true)
    ) {
      try await HTTPSourceLoader().load(url)
    }
    #expect(
      "\(HTTPSourceError.notAnImage(url: url.absoluteString, contentType: "text/html; charset=utf-8", isHTML: true))"
        == "\(url.absoluteString): the server sent an HTML page (Content-Type text/html; "
        + "charset=utf-8), not an image; the URL may be wrong, or the page an error or login "
        + "page sent with status 200")
  }

  @Test func aPNGServedAsJPEGIsKnownByItsBytes() async throws {
    let server = try await Self.misbehaving()
    defer { server.stop() }
    let bytes = try await HTTPSourceLoader().load(server.url("png-as-jpeg.jpg"))
    #expect(bytes == (try Fixtures.bytes("coffee.png")))
    #expect(try ImageHeader(bytes: bytes).loader == "pngload")
  }

  /// The limits are checked on the header: the download stops there, long before the
  /// rest of the photo (dripped over 2 s in 20 chunks) was sent.
  @Test func anImageOverTheLimitsStopsAtItsHeader() async throws {
    let server = try await Self.misbehaving()
    defer { server.stop() }
    let url = server.url("slow.jpg")
    let received = Lock<Int64>(0)
    let loader = HTTPSourceLoader(imageLimits: ImageLimits(maxPixels: 10_000))
    await #expect(
      throws: HTTPSourceError.image(
        url: url.absoluteString,
        error: .tooManyPixels(
          source: url.absoluteString, width: 640, height: 427, pages: 1, limit: 10_000))
    ) {
      try await loader.load(url) { progress in
        received.withLock { $0 = max($0, progress.bytesReceived) }
      }
    }
    let rocket = try Fixtures.bytes("rocket.jpg").count
    #expect(received.withLock { $0 } < Int64(rocket) / 2)
  }

  @Test func theCacheFillsFromAURLAsFromTheFile() async throws {
    let server = try await Self.nginx()
    defer { server.stop() }
    // The default loader (StandardLoader) downloads http URLs.
    let fromURL = try ImageCache(
      configuration: CacheConfiguration(
        directory: Photos.temporaryFolder(), formats: testFormats(), workers: 2))
    let fromFile = try makeCache()
    for name in ["rocket.jpg", "coffee.png"] {
      let web = Entity(id: name, sourceVersion: "v1", source: .url(server.url(name)))
      let written = try await fromURL.fill(web, family: "avatar")
      let reference = try await fromFile.fill(entity(name), family: "avatar")
      #expect(written.keys.sorted() == reference.keys.sorted())
      for (format, bitmap) in written {
        let other = try #require(reference[format])
        #expect(bitmap.width == other.width && bitmap.height == other.height)
        #expect(Array(bitmap.bytes) == Array(other.bytes), "\(name) \(format)")
      }
    }
  }

  @Test func aCacheFillOfAMissingURLNamesTheStatus() async throws {
    let server = try await Self.misbehaving()
    defer { server.stop() }
    let cache = try makeCache(loader: StandardLoader())
    let url = server.url("missing.jpg")
    let missing = Entity(id: "gone", sourceVersion: "v1", source: .url(url))
    do {
      try await cache.fill(missing, family: "avatar")
      Issue.record("a 404 filled")
    } catch {
      let expected = CacheError.http(
        entityID: "gone",
        error: .http(.status(url: url.absoluteString, code: 404, attempts: 1)))
      #expect(error == expected)
      #expect("\(error)" == "gone: \(url.absoluteString): the server answered 404 Not Found")
      if case .http(_, let failure) = error { #expect(failure.statusCode == 404) }
    }
    #expect(cache.table(format: "avatar.small")?.stats.entries == 0)
  }
}

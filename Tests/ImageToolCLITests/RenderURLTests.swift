import CacheSharding
import Foundation
import ImageTables
import TestFixtures
import Testing

@testable import ImageToolCLI

/// `imgtool render` of http URLs, against nginx and the misbehaving server.
@Suite("imgtool render of URLs")
struct RenderURLTests {
  private func json(_ lines: [String]) throws -> [String: Any] {
    try #require(
      try JSONSerialization.jsonObject(with: Data(lines.joined().utf8)) as? [String: Any])
  }

  /// Every entry of the family's tables in `cache`: id to (version, width, height, bytes).
  private func entries(_ cache: String, format: String) throws -> [String: Entry] {
    let table = try ImageTable(existingTableAt: cache + "/\(format).table")
    var found: [String: Entry] = [:]
    for entry in table.entries() {
      let bitmap = try #require(
        table.bitmap(entityID: entry.entityID, sourceVersion: entry.sourceVersion))
      found[entry.entityID] = Entry(
        version: entry.sourceVersion, width: bitmap.width, height: bitmap.height,
        bytes: Array(bitmap.bytes))
    }
    return found
  }

  struct Entry: Equatable {
    var version: String
    var width: Int, height: Int
    var bytes: [UInt8]
  }

  private static let formats = ["avatar.small", "avatar.medium", "avatar.large"]
  private static let names = ["rocket.jpg", "hubble.jpg", "coffee.png"]

  @Test func urlsRenderAsTheirFilesThenAnswer304ThenAChangeRenders() async throws {
    let (photos, cache) = try copiedPhotos(Self.names)
    let server = try await onOwnThread { try NginxServer.start(serving: photos) }
    defer { stopOnOwnThread(server.stop) }
    let urls = Self.names.map { server.url($0).absoluteString }
    let first = await runTool(["render", "--family", "avatar", "--cache", cache, "--json"] + urls)
    #expect(first.status == 0, "\(first.err)")
    let summary = try json(first.out)
    #expect(summary["written"] as? Int == 9)
    let sizes = try Self.names.map { try Fixtures.bytes($0).count }
    #expect(summary["downloadedBytes"] as? Int == sizes.reduce(0, +))

    // Byte for byte what a render of the same files gives; the versions the ETags.
    let fileCache = photos.deletingLastPathComponent().appendingPathComponent("files").path
    let files = await runTool(
      ["render", "--family", "avatar", "--cache", fileCache, "--quiet"]
        + Self.names.map { photos.appendingPathComponent($0).path })
    #expect(files.status == 0)
    let log = server.accessLog(waitingFor: 3)
    for format in Self.formats {
      let web = try entries(cache, format: format)
      let disk = try entries(fileCache, format: format)
      #expect(Set(web.keys) == Set(urls))
      for (name, url) in zip(Self.names, urls) {
        let (webEntry, diskEntry) = (try #require(web[url]), try #require(disk[name]))
        #expect(webEntry.bytes == diskEntry.bytes, "\(format) \(name)")
        #expect(webEntry.width == diskEntry.width && webEntry.height == diskEntry.height)
        let etag = try #require(log.first { $0.path == "/" + name && $0.status == 200 })
        #expect(etag.status == 200 && etag.bodyBytes == sizes[Self.names.firstIndex(of: name)!])
        #expect(webEntry.version.hasPrefix("etag:\""))
      }
    }

    // Again: conditional requests only, each answered 304 with no body; nothing written.
    let again = await runTool(["render", "--family", "avatar", "--cache", cache] + urls)
    #expect(again.status == 0)
    #expect(
      again.out.first?.hasPrefix(
        "render: family avatar: 3 photos: 0 rendered, 3 up to date, 0 failed; 0 entries "
          + "written, 0 B downloaded, in ") == true, "\(again.out)")
    // Nothing to write: the read-only look answered it all, with no progress lines.
    #expect(again.err == [])
    let second = Array(server.accessLog(waitingFor: 6).dropFirst(3))
    #expect(second.count == 3)
    #expect(second.allSatisfy { $0.status == 304 && $0.bodyBytes == 0 })
    let stored = try entries(cache, format: "avatar.small")
    for request in second {
      let url = server.url(String(request.path.dropFirst())).absoluteString
      #expect(request.ifNoneMatch.map { "etag:" + $0 } == stored[url]?.version)
    }

    // A changed file (new ETag) renders again; the others stay up to date.
    let coffee = photos.appendingPathComponent("coffee.png")
    try FileManager.default.removeItem(at: coffee)
    try FileManager.default.copyItem(atPath: Fixtures.photo("chelsea.png"), toPath: coffee.path)
    let changed = await runTool(
      ["render", "--family", "avatar", "--cache", cache, "--json"] + urls)
    #expect(changed.status == 0)
    let changedSummary = try json(changed.out)
    #expect(changedSummary["rendered"] as? Int == 1)
    #expect(changedSummary["skipped"] as? Int == 2)
    #expect(changedSummary["written"] as? Int == 3)
    // Downloaded once, though the read-only look asked first.
    #expect(changedSummary["downloadedBytes"] as? Int == (try Fixtures.bytes("chelsea.png").count))
    let third = Array(server.accessLog(waitingFor: 9).dropFirst(6))
    #expect(third.filter { $0.status == 200 }.map(\.path) == ["/coffee.png"])
    #expect(third.count == 3)  // the render used the read-only look's answers
    let now = try entries(cache, format: "avatar.large")
    #expect(now[urls[2]]?.version != stored[urls[2]]?.version)
    // The new entries are the new file's.
    _ = await runTool(
      ["render", "--family", "avatar", "--cache", fileCache, "--quiet", coffee.path])
    #expect(
      now[urls[2]]?.bytes == (try entries(fileCache, format: "avatar.large"))["coffee.png"]?.bytes)

    // --force downloads every URL again (no conditional request) and redraws it all.
    let forced = await runTool(
      ["render", "--family", "avatar", "--cache", cache, "--json", "--force"] + urls)
    #expect(forced.status == 0)
    let forcedSummary = try json(forced.out)
    #expect(forcedSummary["written"] as? Int == 9)
    let current = try ["rocket.jpg", "hubble.jpg", "chelsea.png"].map {
      try Fixtures.bytes($0).count
    }
    #expect(forcedSummary["downloadedBytes"] as? Int == current.reduce(0, +))
    let fourth = Array(server.accessLog(waitingFor: 12).dropFirst(9))
    #expect(fourth.count == 3)
    #expect(fourth.allSatisfy { $0.status == 200 && $0.ifNoneMatch == nil })
  }
}

extension RenderURLTests {
  @Test func aURLListNamesIdsAndTakesCommentsAndStandardInput() async throws {
    let (photos, cache) = try copiedPhotos(Self.names)
    let server = try await onOwnThread { try NginxServer.start(serving: photos) }
    defer { stopOnOwnThread(server.stop) }
    let list = """
      # the trip
      rome\t\(server.url("rocket.jpg").absoluteString)

      \(server.url("hubble.jpg").absoluteString)
      """
    let file = photos.deletingLastPathComponent().appendingPathComponent("urls.txt")
    try Data(list.utf8).write(to: file)
    let result = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--urls", file.path, "--json",
    ])
    #expect(result.status == 0, "\(result.err)")
    #expect(
      Set(try entries(cache, format: "avatar.small").keys)
        == ["rome", server.url("hubble.jpg").absoluteString])

    // From standard input, in its own process.
    let other = photos.deletingLastPathComponent().appendingPathComponent("stdin-cache").path
    let piped = try await onOwnThread {
      try runExecutable(
        ["render", "--family", "avatar", "--cache", other, "--urls", "-", "--json"],
        standardInput: Data(list.utf8))
    }
    #expect(piped.status == 0, "\(piped.err)")
    #expect(
      Set(try entries(other, format: "avatar.small").keys)
        == ["rome", server.url("hubble.jpg").absoluteString])

    // A bad line is named with the file and its number; nothing is rendered.
    try Data((list + "\nftp://example.com/a.jpg\n").utf8).write(to: file)
    let bad = await runTool(["render", "--family", "avatar", "--cache", cache, "--urls", file.path])
    #expect(bad.status == 64)
    #expect(
      bad.err == [
        "imgtool: --urls \(file.path):5: 'ftp://example.com/a.jpg': only http:// and "
          + "https:// URLs are downloaded, not ftp: ones"
      ])
    // A list that is not there: the command line is wrong, nothing is done.
    let missing = file.deletingLastPathComponent().appendingPathComponent("none.txt").path
    let gone = await runTool(
      ["render", "--family", "avatar", "--cache", cache, "--json", "--urls", missing])
    #expect(gone.status == 64)
    #expect(gone.out.isEmpty)
    #expect(gone.err == ["imgtool: --urls \(missing): cannot read the list: no such file"])
  }

  /// URLs given on the command line that the render cannot fetch are each named with
  /// what to write instead; the rest render.
  @Test func urlsOfOtherSchemesAndMalformedOnesSayWhatToWrite() async throws {
    let (photos, cache) = try copiedPhotos(["rocket.jpg"])
    let file = photos.appendingPathComponent("rocket.jpg").path
    let result = await runTool(
      [
        "render", "--family", "avatar", "--cache", cache, "--quiet", "ftp://h/a.jpg",
        "file://" + file, "http://127.0.0.1:99999/a.jpg", "http://h/with space.png",
        "http:///a.jpg",
        file,
      ])
    #expect(result.status == 1)
    let expected: [String] = [
      "  failed: ftp://h/a.jpg: only http:// and https:// URLs are downloaded, not ftp: ones",
      "  failed: file://\(file): a file: URL; give the file's path instead (only http:// and "
        + "https:// URLs are downloaded)",
      "  failed: http://127.0.0.1:99999/a.jpg: 99999 is not a port (1 to 65535)",
      "  failed: http://h/with space.png: it holds a space: write a space in a URL as %20; a "
        + "comment goes on a line of its own, and an id is followed by one tab, not spaces "
        + "('id<TAB>url')",
      "  failed: http:///a.jpg: no host after http://",
    ]
    let failures = Array(result.out.dropFirst().prefix(5))
    #expect(failures == expected)
    #expect(result.out.first?.contains("1 rendered") == true, "\(result.out)")
  }

  /// Each misbehaving case fails alone with its reason and status; the good URLs render.
  @Test func aBatchOfMisbehavingURLsNamesEachAndRendersTheRest() async throws {
    let server = try await onOwnThread { try MisbehavingServer.start() }
    defer { stopOnOwnThread(server.stop) }
    let cache = try Fixtures.temporaryFolder().appendingPathComponent("cache").path
    let good = [server.url("photos/rocket.jpg"), server.url("png-as-jpeg.jpg")].map(
      \.absoluteString)
    let refused = MisbehavingServer.refusedURL().absoluteString
    let url = { (path: String) in server.url(path).absoluteString }
    let rocket = try Fixtures.bytes("rocket.jpg").count
    let expected: [(url: String, error: String, status: Int?)] = [
      (
        url("page.jpg"),
        "the server sent an HTML page (Content-Type text/html; charset=utf-8), not an image; "
          + "the URL may be wrong, or the page an error or login page sent with status 200", nil
      ),
      (url("missing.jpg"), "the server answered 404 Not Found", 404),
      (
        url("short.jpg"),
        "the body ended after \(rocket / 2) of its \(rocket) bytes after 1 attempt; the server "
          + "closed the connection early", nil
      ),
      (
        url("stall.jpg"),
        "no byte arrived for 3 s (idle timeout) after 1 attempt; the server is stalled or too "
          + "slow, raise --timeout if it is only slow", nil
      ),
      (
        url("loop"),
        "redirect loop \(url("loop")) -> \(url("loop2")) -> \(url("loop")); the server "
          + "redirects in a circle, fix its redirects", nil
      ),
    ]
    // A short timeout for the stall, long enough for the other cases on a busy machine.
    let arguments =
      ["render", "--family", "avatar", "--cache", cache, "--timeout", "3", "--retries", "0"]
      + [good[0]] + expected.map(\.url) + [url("huge.jpg"), refused, good[1]]
    let result = await runTool(arguments + ["--json"])
    #expect(result.status == 1)
    let summary = try json(result.out)
    #expect(summary["rendered"] as? Int == 2)
    #expect(summary["written"] as? Int == 6)
    let failed = try #require(summary["failed"] as? [[String: Any]])
    var byURL: [String: [String: Any]] = [:]
    for failure in failed { byURL[failure["url"] as? String ?? ""] = failure }
    #expect(Set(byURL.keys) == Set(expected.map(\.url) + [refused, url("huge.jpg")]))
    for (url, error, status) in expected {
      let failure = try #require(byURL[url])
      #expect(failure["path"] as? String == url)
      #expect(failure["error"] as? String == error)
      #expect(failure["status"] as? Int == status)
      if status == nil { #expect(failure["status"] is NSNull) }
    }
    // 8 GiB announced: refused at the headers, before any of the body.
    let huge = try #require(byURL[url("huge.jpg")])
    #expect(
      huge["error"] as? String
        == "the body is 8589934592 bytes (Content-Length), over the limit of 104857600 bytes, "
        + "and was not downloaded; raise --max-size to accept it")
    #expect(huge["status"] is NSNull)
    let refusal = try #require(byURL[refused]?["error"] as? String)
    #expect(refusal.hasPrefix("no connection ("))
    #expect(
      refusal.hasSuffix(") after 1 attempt; check that the server is up and the address is right"))
    // Nothing was written for the failed ones.
    for format in Self.formats {
      #expect(Set(try entries(cache, format: format).keys) == Set(good))
    }

    // The same in text: each failure on a line of its own, URL first.
    let text = await runTool(arguments + ["--force", "--quiet"])
    #expect(text.status == 1)
    for (url, error, _) in expected {
      #expect(text.out.contains("  failed: \(url): \(error)"), "\(url)")
    }
  }

  /// A URL whose bytes arrive whole but do not decode (a JPEG cut short on the server)
  /// fails once, named with libvips's reason, and is downloaded once: the render tries a
  /// failed fill again alone (libvips's error buffer is shared) from the bytes it has.
  @Test func aURLThatFailsToDecodeIsDownloadedOnce() async throws {
    let (photos, cache) = try copiedPhotos(["rocket.jpg"])
    let whole = try Fixtures.bytes("hubble.jpg")
    try Data(whole.prefix(whole.count / 2)).write(to: photos.appendingPathComponent("cut.jpg"))
    let server = try await onOwnThread { try NginxServer.start(serving: photos) }
    defer { stopOnOwnThread(server.stop) }
    let urls = [server.url("cut.jpg").absoluteString, server.url("rocket.jpg").absoluteString]
    let result = await runTool(
      ["render", "--family", "avatar", "--cache", cache, "--json", "--jobs", "2"] + urls)
    #expect(result.status == 1)
    let summary = try json(result.out)
    let failed = try #require(summary["failed"] as? [[String: Any]])
    #expect(failed.map { $0["url"] as? String } == [urls[0]])
    let reason = try #require(failed.first?["error"] as? String)
    #expect(reason.contains("Premature end of"), "\(reason)")
    let rocket = try Fixtures.bytes("rocket.jpg").count
    #expect(summary["downloadedBytes"] as? Int == whole.count / 2 + rocket)
    let log = server.accessLog(waitingFor: 2)
    #expect(log.filter { $0.path == "/cut.jpg" }.map(\.status) == [200])
    #expect(log.filter { $0.path == "/rocket.jpg" }.map(\.status) == [200])
  }

  /// A URL too long to be an entity id with its version is named with the way out (an
  /// id of its own in a list), which then renders it.
  @Test func aURLTooLongForAnIdSaysToNameOne() async throws {
    let (photos, cache) = try copiedPhotos(["rocket.jpg"])
    let server = try await onOwnThread { try NginxServer.start(serving: photos) }
    defer { stopOnOwnThread(server.stop) }
    let url = server.url("rocket.jpg?pad=" + String(repeating: "a", count: 420)).absoluteString
    let long = await runTool(["render", "--family", "avatar", "--cache", cache, "--quiet", url])
    #expect(long.status == 1)
    let line = try #require(long.out.first { $0.hasPrefix("  failed: ") })
    #expect(line.contains("the limit is 448"), "\(line)")
    #expect(line.hasSuffix("; give this URL a shorter id with a --urls line 'id<TAB>url'"))
    let list = photos.appendingPathComponent("list.txt")
    try Data("rocket\t\(url)\n".utf8).write(to: list)
    let named = await runTool(
      ["render", "--family", "avatar", "--cache", cache, "--quiet", "--urls", list.path])
    #expect(named.status == 0, "\(named.out)")
    #expect(Set(try entries(cache, format: "avatar.small").keys) == ["rocket"])
  }

  @Test func shardsSplitAURLListByEntityID() async throws {
    let (photos, _) = try copiedPhotos(Self.names)
    let server = try await onOwnThread { try NginxServer.start(serving: photos) }
    defer { stopOnOwnThread(server.stop) }
    // Twelve URLs (the query makes each its own entity; nginx serves the file).
    let urls = (0..<12).map { server.url(Self.names[$0 % 3] + "?n=\($0)").absoluteString }
    let work = try Fixtures.temporaryFolder()
    var seen: [Set<String>] = []
    for index in 0...1 {
      let cache = work.appendingPathComponent("shard\(index)").path
      let result = await runTool(
        ["render", "--family", "avatar", "--cache", cache, "--shard", "\(index)/2", "--quiet"]
          + urls)
      #expect(result.status == 0, "\(result.err)")
      let shard = try Shard(index: index, count: 2)
      let ids = Set(try entries(cache, format: "avatar.small").keys)
      #expect(ids == Set(urls.filter(shard.contains)))
      seen.append(ids)
    }
    #expect(seen[0].isDisjoint(with: seen[1]))
    #expect(seen[0].union(seen[1]) == Set(urls))
    #expect(!seen[0].isEmpty && !seen[1].isEmpty)
  }
}

extension RenderURLTests {
  /// A server that answers 500 twice and then the photo: the render's retries (2 by
  /// default) get it, beside a photo that never fails; `--retries 1` gives up, naming
  /// the status and the attempts.
  @Test func aURLThatFailsTwiceWith500RendersOnItsThirdAttempt() async throws {
    let server = try await onOwnThread { try MisbehavingServer.start() }
    defer { stopOnOwnThread(server.stop) }
    let cache = try Fixtures.temporaryFolder().appendingPathComponent("cache").path
    let flaky = "flaky.jpg?fail=2&key=\(UUID())"
    let urls = [server.url(flaky).absoluteString, server.url("photos/coffee.png").absoluteString]
    let result = await runTool(
      ["render", "--family", "avatar", "--cache", cache, "--json"] + urls)
    #expect(result.status == 0, "\(result.out)")
    #expect(try json(result.out)["written"] as? Int == 6)
    #expect(try await onOwnThread { try server.requestCount(flaky) } == 3)
    let stubborn = "flaky.jpg?fail=5&key=\(UUID())"
    let once = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--json", "--retries", "1",
      server.url(stubborn).absoluteString,
    ])
    #expect(once.status == 1)
    let failed = try #require(try json(once.out)["failed"] as? [[String: Any]])
    #expect(failed.first?["status"] as? Int == 500)
    #expect(try await onOwnThread { try server.requestCount(stubborn) } == 2)
  }

  @Test func maxSizeCutsABodyWithoutLengthAndBadLimitsAreNamed() async throws {
    let server = try await onOwnThread { try MisbehavingServer.start() }
    defer { stopOnOwnThread(server.stop) }
    let cache = try Fixtures.temporaryFolder().appendingPathComponent("cache").path
    let endless = server.url("nolength.jpg").absoluteString
    let result = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--max-size", "1", "--json", endless,
    ])
    #expect(result.status == 1)
    let failed = try #require(try json(result.out)["failed"] as? [[String: Any]])
    #expect(
      failed.first?["error"] as? String
        == "the body passed the limit of 1048576 bytes and was cut off; raise --max-size to "
        + "accept it")
    let bad = await runTool(["render", "--family", "avatar", "--timeout", "0", endless])
    #expect(bad.status != 0)
    #expect(
      bad.err.first
        == "imgtool: invalid value '0' for '--timeout': give seconds, more than 0 and at most 3600"
    )
  }
}

/// Stops a test server on a thread of its own: `stop` waits for the server's process to
/// end, which must not hold one of Swift's cooperative threads (two here) meanwhile.
private func stopOnOwnThread(_ stop: @escaping @Sendable () -> Void) {
  Thread.detachNewThread(stop)
}

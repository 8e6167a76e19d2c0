import Foundation
import ImageCaching
import ImageTables
import TestFixtures
import Testing
import WebLoading

@testable import PhotoModels

/// URL photos against a real web server (the misbehaving one's `/slow.jpg`, which drips
/// rocket.jpg with its Content-Length), through the cache's standard loader
/// (HTTPSourceLoader over libcurl).
@Suite("URL photos from a web server", .timeLimit(.hangGuard))
struct URLPhotoServerTests {
  static func makeCache(loader: StandardLoader = StandardLoader()) throws -> ImageCache {
    let format = try ImageFormat(
      name: "screen", family: "photo", width: 60, height: 40, style: .bgr32, pipeline: "fit")
    return try ImageCache(
      configuration: .init(
        directory: try Fixtures.temporaryFolder(), formats: [format], loader: loader))
  }

  /// The events of the photo's next load, up to its end.
  static func load(_ photo: any Photo) async -> [PhotoEvent] {
    let events = photo.events()
    photo.loadUnderlyingImage()
    var seen: [PhotoEvent] = []
    for await event in events {
      seen.append(event)
      if case .loadingDidEnd = event { break }
    }
    return seen
  }

  /// The TCP states (`/proc/net/tcp`'s hex codes: 01 established, 08 close-wait...) of the
  /// connections the server on `port` has accepted, its listening socket left out.
  static func serverSideStates(port: Int) throws -> [String] {
    // Read to its end: `String(contentsOfFile:)` stops at procfs's first 4 KiB page.
    guard let file = FileHandle(forReadingAtPath: "/proc/net/tcp") else {
      throw CocoaError(.fileReadNoSuchFile)
    }
    defer { try? file.close() }
    let table = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
    return table.split(separator: "\n").dropFirst().compactMap { line in
      let fields = line.split(separator: " ")
      guard fields.count > 3, let local = fields[1].split(separator: ":").last,
        Int(local, radix: 16) == port, fields[3] != "0A"
      else { return nil }
      return String(fields[3])
    }
  }

  @Test func aURLPhotoLoadsFromTheServerWithTheDownloadsProgress() async throws {
    let server = try await onOwnThread { try MisbehavingServer.start() }
    defer { Thread.detachNewThread(server.stop) }  // stop waits: not on the shared pool
    let cache = try Self.makeCache()
    let photo = CachedPhoto(
      cache: cache, url: server.url("slow.jpg?chunks=8&seconds=0.7"), format: "screen")
    let events = await Self.load(photo)
    #expect(events.last == .loadingDidEnd(succeeded: true, error: nil))
    let fractions = events.compactMap { event -> Double? in
      if case .progress(let fraction) = event { return fraction }
      return nil
    }
    // The bytes as they came (8 chunks about 0.1 s apart): rising, some of the way first,
    // then all of it; then the load's own 1 as it ends.
    #expect(fractions.count >= 4, "\(fractions)")
    #expect(fractions.first.map { $0 > 0 && $0 < 1 } == true, "\(fractions)")
    #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 }, "\(fractions)")
    #expect(Set(fractions.filter { $0 < 1 }).count >= 2, "\(fractions)")
    #expect(fractions.suffix(2) == [1, 1])
    // The entry is the same as one filled from the file.
    let reference = try await PhotoTests.makeCache().image(
      for: Entity(id: "r", sourceVersion: "1", source: .file(Fixtures.photo("rocket.jpg"))),
      format: "screen")
    #expect(try Array(#require(photo.underlyingImage).bytes) == Array(reference.bytes))
    #expect(try await onOwnThread { try server.requestCount("slow.jpg?chunks=8&seconds=0.7") } == 1)
  }

  @Test func anUnloadMidDownloadClosesTheConnection() async throws {
    let server = try await onOwnThread { try MisbehavingServer.start() }
    defer { Thread.detachNewThread(server.stop) }  // stop waits: not on the shared pool
    // The attempt's ceiling longer than the test may wait for a thread: in a CI run whose
    // cooperative threads were busy for minutes, the first event came after the default
    // 120 s ceiling had ended the first attempt and a retry had opened a second connection.
    let cache = try Self.makeCache(
      loader: StandardLoader(limits: HTTPLimits(requestTimeout: .seconds(900))))
    // A chunk a second for 10 minutes (never idle long enough for a timeout, however late
    // the events come): a download not stopped would outlive the time limit.
    let path = "slow.jpg?chunks=600&seconds=600"
    let photo = CachedPhoto(cache: cache, url: server.url(path), format: "screen")
    let stream = photo.events()
    photo.loadUnderlyingImage()
    var events: [PhotoEvent] = []
    var whileLoading: [String] = []
    for await event in stream {
      events.append(event)
      if events.count == 1 {  // the first chunk came: the download is under way
        whileLoading = try Self.serverSideStates(port: server.port)
        photo.unloadUnderlyingImage()
      }
      if case .loadingDidEnd = event { break }
    }
    #expect(whileLoading == ["01"])  // one connection, established
    // What came before the unload was progress (from the first chunks), then its end.
    let before = events.dropLast().map { event -> Double? in
      if case .progress(let fraction) = event { return fraction }
      return nil
    }
    #expect(!before.isEmpty && before.allSatisfy { $0.map { $0 > 0 && $0 < 0.1 } == true })
    #expect(events.last == .loadingDidEnd(succeeded: false, error: PhotoError.unloaded.description))
    // The fill ends: the download returned when its task was cancelled.
    await cache.waitForFills()
    #expect(!cache.contains(photo.entity, format: "screen"))
    // The server sees the connection closed (its end leaves ESTABLISHED at the client's
    // FIN). Looked at until it does; a connection kept open fails at the bound.
    var states = try Self.serverSideStates(port: server.port)
    let bound = ContinuousClock.now + .seconds(20)
    while states.contains("01"), ContinuousClock.now < bound {
      try await Task.sleep(for: .milliseconds(20))
      states = try Self.serverSideStates(port: server.port)
    }
    #expect(!states.contains("01"), "server-side TCP states: \(states)")
    #expect(try await onOwnThread { try server.requestCount(path) } == 1)  // no retry
  }
}

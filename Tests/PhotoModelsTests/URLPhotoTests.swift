import Foundation
import ImageCaching
import ImageTables
import Locking
import TestFixtures
import Testing

@testable import PhotoModels

/// A URL loader whose one load streams the chunks a test sends through its ``feed``,
/// reporting the bytes so far (of the whole length) after each, and honouring
/// cancellation as a real download does.
final class StreamingLoader: SourceLoader, Sendable {
  let feed = ChunkFeed()
  let expected: Int64?
  private let count = Lock(0)

  init(expected: Int64?) { self.expected = expected }

  var loads: Int { count.withLock { $0 } }

  func load(_ url: URL) async throws -> [UInt8] { try await load(url) { _ in } }

  func load(_ url: URL, progress: @escaping @Sendable (LoadProgress) -> Void) async throws
    -> [UInt8]
  {
    count.withLock { $0 += 1 }
    var bytes: [UInt8] = []
    while let chunk = try await feed.next() {
      bytes += chunk
      progress(LoadProgress(bytesReceived: Int64(bytes.count), bytesExpected: expected))
    }
    return bytes
  }
}

/// Photos made from a URL (IDMPhotoBrowser's `photoWithURL:`): loaded through the cache,
/// with the download's progress, one end, and the download cancelled by an unload.
@Suite("URL photos", .timeLimit(.hangGuard))
struct URLPhotoTests {
  static let url = URL(string: "https://example.com/photos/hubble.jpg")!

  /// hubble.jpg in three chunks, and the fraction loaded after each.
  struct Chunks {
    let parts: [[UInt8]]
    let total: Int64

    init() throws {
      let bytes = try Fixtures.bytes("hubble.jpg")
      total = Int64(bytes.count)
      let third = bytes.count / 3
      parts = [
        Array(bytes[..<third]), Array(bytes[third..<(2 * third)]), Array(bytes[(2 * third)...]),
      ]
    }

    func fraction(after count: Int) -> Double {
      let received = parts.prefix(count).reduce(0) { $0 + $1.count }
      return LoadProgress(bytesReceived: Int64(received), bytesExpected: total).fraction!
    }
  }

  /// What a photo tells, both ways: its events, and the fractions of its progress
  /// notifications and the count of its end notifications.
  final class Watcher: Sendable {
    let events = Recorder<PhotoEvent>()
    let notified = Recorder<Double>()
    /// One value a `photoLoadingDidEnd` notification.
    let ends = Recorder<Bool>()
    private let listener: Task<Void, Never>
    nonisolated(unsafe) private let observers: [any NSObjectProtocol]

    init(_ photo: any Photo) {
      let (events, notified, ends) = (events, notified, ends)
      let stream = photo.events()
      listener = Task { for await event in stream { events.record(event) } }
      observers = [
        NotificationCenter.default.addObserver(
          forName: .photoProgress, object: photo, queue: nil
        ) { note in
          notified.record(note.userInfo?[Notification.photoProgressKey] as? Double ?? -1)
        },
        NotificationCenter.default.addObserver(
          forName: .photoLoadingDidEnd, object: photo, queue: nil
        ) { _ in ends.record(true) },
      ]
    }

    deinit {
      listener.cancel()
      for observer in observers { NotificationCenter.default.removeObserver(observer) }
    }
  }

  /// The screen entry of hubble.jpg as a fill from the file writes it.
  static func reference() async throws -> [UInt8] {
    let cache = try PhotoTests.makeCache()
    let file = Entity(id: "hubble", sourceVersion: "1", source: .file(Fixtures.photo("hubble.jpg")))
    return Array(try await cache.image(for: file, format: "screen").bytes)
  }

  @Test func aURLPhotoIsTheURLsEntityWithTheDefaultVersion() throws {
    let cache = try PhotoTests.makeCache()
    let photo = CachedPhoto(cache: cache, url: Self.url, format: "screen", caption: "Hubble")
    #expect(photo.entity.id == "https://example.com/photos/hubble.jpg")
    #expect(photo.entity.sourceVersion == "1" && CachedPhoto.defaultURLVersion == "1")
    #expect(photo.entity.source == .url(Self.url) && photo.url == Self.url)
    let versioned = CachedPhoto(cache: cache, url: Self.url, format: "screen", version: "v7")
    #expect(versioned.entity.sourceVersion == "v7")
    let file = CachedPhoto(
      cache: cache, entity: Entity(id: "a", sourceVersion: "1", source: .file("a.jpg")),
      format: "screen")
    #expect(file.url == nil)
  }

  /// An entry someone wrote for the URL with a version of their own (as `imgtool render`
  /// writes the server's ETag) is the photo's when no version is given: a hit, with no
  /// request. A version given still decides.
  @Test func aURLPhotoTakesTheVersionTheCacheHoldsForItsURL() async throws {
    let loader = StreamingLoader(expected: nil)
    let cache = try PhotoTests.makeCache(loader: loader)
    let rendered = Entity(
      id: Self.url.absoluteString, sourceVersion: "etag:\"6b0f-80e44\"",
      source: .file(Fixtures.photo("hubble.jpg")))
    let entry = Array(try await cache.image(for: rendered, format: "screen").bytes)
    #expect(
      cache.sourceVersion(of: Self.url.absoluteString, format: "screen") == "etag:\"6b0f-80e44\"")
    let photo = CachedPhoto(cache: cache, url: Self.url, format: "screen")
    #expect(photo.entity.sourceVersion == "etag:\"6b0f-80e44\"")
    #expect(photo.underlyingImage.map { Array($0.bytes) } == entry)
    let watcher = Watcher(photo)
    photo.loadUnderlyingImage()
    await watcher.events.waitUntil(count: 1)
    #expect(watcher.events.values.last == .loadingDidEnd(succeeded: true, error: nil))
    #expect(loader.loads == 0)
    let pinned = CachedPhoto(cache: cache, url: Self.url, format: "screen", version: "v7")
    #expect(pinned.entity.sourceVersion == "v7" && pinned.underlyingImage == nil)
  }

  @Test func itsLoadReportsTheDownloadsProgressAndEndsOnceWithTheImage() async throws {
    let chunks = try Chunks()
    let loader = StreamingLoader(expected: chunks.total)
    let cache = try PhotoTests.makeCache(loader: loader)
    let photo = CachedPhoto(cache: cache, url: Self.url, format: "screen")
    let watcher = Watcher(photo)
    #expect(photo.underlyingImage == nil)
    photo.loadUnderlyingImage()
    #expect(photo.isLoading && photo.loadProgress == 0)
    await loader.feed.waitUntilAsked(1)
    for (index, part) in chunks.parts.enumerated() {
      loader.feed.send(part)
      await watcher.events.waitUntil(count: index + 1)
      #expect(photo.loadProgress == chunks.fraction(after: index + 1))
    }
    loader.feed.finish()
    await watcher.events.waitUntil(count: 5)
    let fractions = (1...3).map(chunks.fraction(after:))
    #expect(fractions[0] > 0.3 && fractions[0] < 0.34 && fractions[2] == 1)
    #expect(
      watcher.events.values
        == fractions.map(PhotoEvent.progress) + [
          .progress(1), .loadingDidEnd(succeeded: true, error: nil),
        ])
    // The notification carries the same fractions (MWPHOTO_PROGRESS_NOTIFICATION), and the
    // end was posted once.
    await watcher.notified.waitUntil(count: 4)
    #expect(watcher.notified.values == fractions + [1])
    // Posted after the last progress notification: waited for, not assumed there.
    await watcher.ends.waitUntil(count: 1)
    #expect(watcher.ends.values.count == 1)
    #expect(!photo.isLoading && photo.loadProgress == 1 && loader.loads == 1)
    let image = try #require(photo.underlyingImage)
    #expect(Array(image.bytes) == (try await Self.reference()))
    #expect(cache.contains(photo.entity, format: "screen"))
  }

  @Test func anUnloadMidLoadCancelsTheDownloadAndEndsTheLoadOnce() async throws {
    let chunks = try Chunks()
    let loader = StreamingLoader(expected: chunks.total)
    let cache = try PhotoTests.makeCache(loader: loader)
    let photo = CachedPhoto(cache: cache, url: Self.url, format: "screen")
    let watcher = Watcher(photo)
    photo.loadUnderlyingImage()
    await loader.feed.waitUntilAsked(1)
    loader.feed.send(chunks.parts[0])
    await watcher.events.waitUntil(count: 1)
    await loader.feed.waitUntilAsked(2)  // the download waits for its next bytes
    photo.unloadUnderlyingImage()
    // The loader's own task saw the cancellation: its read threw.
    await loader.feed.waitUntilCancelled()
    await cache.waitForFills()
    await watcher.events.waitUntil(count: 2)
    #expect(
      watcher.events.values == [
        .progress(chunks.fraction(after: 1)),
        .loadingDidEnd(succeeded: false, error: PhotoError.unloaded.description),
      ])
    // Posted after the last progress notification: waited for, not assumed there.
    await watcher.ends.waitUntil(count: 1)
    #expect(watcher.ends.values.count == 1)
    #expect(!photo.isLoading && photo.loadProgress == 0 && photo.underlyingImage == nil)
    #expect(!cache.contains(photo.entity, format: "screen"))
    #expect(cache.statistics.entriesWritten == 0 && cache.statistics.decodes == 0)
  }

  @Test func aHitNeedsNoLoaderCall() async throws {
    let loader = StreamingLoader(expected: nil)
    let cache = try PhotoTests.makeCache(loader: loader)
    // The entry of the URL's id and version, filled from the file beforehand.
    let filled = try await cache.image(
      for: Entity(
        id: Self.url.absoluteString, sourceVersion: "1",
        source: .file(Fixtures.photo("hubble.jpg"))),
      format: "screen")
    let decodes = cache.statistics.decodes
    let photo = CachedPhoto(cache: cache, url: Self.url, format: "screen")
    let watcher = Watcher(photo)
    // underlyingImage answers from the cache before any load: the entry itself.
    #expect(photo.underlyingImage?.bytes.baseAddress == filled.bytes.baseAddress)
    photo.loadUnderlyingImage()
    await watcher.events.waitUntil(count: 2)
    #expect(watcher.events.values == [.progress(1), .loadingDidEnd(succeeded: true, error: nil)])
    #expect(loader.loads == 0 && loader.feed.asked == 0)
    #expect(cache.statistics.decodes == decodes)
  }

  @Test @MainActor func theBrowserGivesTheCurrentPhotosProgress() async throws {
    let chunks = try Chunks()
    let loader = StreamingLoader(expected: chunks.total)
    let cache = try PhotoTests.makeCache(loader: loader)
    let photo = CachedPhoto(cache: cache, url: Self.url, format: "screen")
    let browser = PhotoBrowser(photos: [photo])
    #expect(browser.currentProgress == nil)  // not asked to load yet
    let seen = Recorder<PhotoBrowserEvent>()
    let events = browser.events()
    let listener = Task { for await event in events { seen.record(event) } }
    defer { listener.cancel() }
    browser.show()
    #expect(browser.currentProgress == 0)
    await loader.feed.waitUntilAsked(1)
    loader.feed.send(chunks.parts[0])
    await seen.waitUntil(count: 2)
    #expect(
      seen.values == [
        .didShowPhoto(index: 0), .progress(index: 0, fraction: chunks.fraction(after: 1)),
      ])
    #expect(browser.currentProgress == chunks.fraction(after: 1))
    loader.feed.send(chunks.parts[1] + chunks.parts[2])
    loader.feed.finish()
    await seen.waitUntil(count: 5)
    #expect(
      Array(seen.values.dropFirst(2)) == [
        .progress(index: 0, fraction: 1), .progress(index: 0, fraction: 1),
        .loadingDidEnd(index: 0),
      ])
    #expect(browser.currentProgress == nil)  // loaded
  }
}

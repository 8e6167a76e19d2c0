import Foundation
import ImageCaching
import ImageTables
import Locking
import TestFixtures
import Testing

@testable import PhotoModels

@Suite("Photos", .timeLimit(.hangGuard))
struct PhotoTests {
  static func bundled(_ name: String) -> String { Fixtures.photo(name) }

  static func makeCache(loader: any SourceLoader = FileURLLoader()) throws -> ImageCache {
    let folder = try Fixtures.temporaryFolder()
    let format = try ImageFormat(
      name: "screen", family: "photo", width: 60, height: 40, style: .bgr32, pipeline: "fit")
    return try ImageCache(
      configuration: .init(directory: folder, formats: [format], loader: loader))
  }

  /// Waits for the photo's next load to end, after starting it.
  func loadAndWait(_ photo: any Photo) async -> PhotoEvent? {
    let events = photo.events()
    photo.loadUnderlyingImage()
    for await event in events {
      if case .loadingDidEnd = event { return event }
    }
    return nil
  }

  @Test func aFilePhotoLoadsAndSaysSo() async throws {
    let photo = FilePhoto(
      path: Self.bundled("coffee.png"), width: 60, height: 60, caption: "Coffee")
    #expect(photo.underlyingImage == nil)
    let notified = Lock(0)
    let observer = NotificationCenter.default.addObserver(
      forName: .photoLoadingDidEnd, object: photo, queue: nil
    ) { _ in notified.withLock { $0 += 1 } }
    defer { NotificationCenter.default.removeObserver(observer) }
    #expect(await loadAndWait(photo) == .loadingDidEnd(succeeded: true, error: nil))
    let image = try #require(photo.underlyingImage)
    #expect((image.width, image.height) == (60, 40))  // fit: 600x400 inside 60x60
    #expect(photo.loadProgress == 1)
    #expect(notified.withLock { $0 } == 1)
    photo.unloadUnderlyingImage()
    #expect(photo.underlyingImage == nil)
  }

  @Test func aFailedLoadSaysWhy() async {
    let photo = FilePhoto(path: "/missing/photo.jpg", width: 10, height: 10)
    #expect(
      await loadAndWait(photo)
        == .loadingDidEnd(
          succeeded: false, error: "/missing/photo.jpg: cannot read the file: no such file"))
    #expect(photo.underlyingImage == nil && !photo.isLoading)
  }

  @Test func repeatedLoadsStartOneLoad() async throws {
    let loader = CountingLoader()
    let cache = try Self.makeCache(loader: loader)
    let entity = Entity(
      id: "c", sourceVersion: "1", source: .url(URL(string: "test:/chelsea.png")!))
    let photo = CachedPhoto(cache: cache, entity: entity, format: "screen")
    let events = photo.events()
    for _ in 0..<5 { photo.loadUnderlyingImage() }
    for await event in events { if case .loadingDidEnd = event { break } }
    #expect(loader.loads == 1)
    #expect(photo.underlyingImage?.width == 60)
  }

  @Test func aCachedPhotoReadsARenderedEntryWithNoDecode() async throws {
    let cache = try Self.makeCache()
    let entity = Entity(id: "rocket", sourceVersion: "1", source: .file(Self.bundled("rocket.jpg")))
    _ = try await cache.fill(entity, family: "photo")
    let decodes = cache.statistics.decodes
    let photo = CachedPhoto(cache: cache, entity: entity, format: "screen", caption: "Rocket")
    let image = try #require(photo.underlyingImage)  // a hit, before any load
    #expect(
      image.bytes.baseAddress == cache.cachedImage(for: entity, format: "screen")?.bytes.baseAddress
    )
    #expect(await loadAndWait(photo) == .loadingDidEnd(succeeded: true, error: nil))
    #expect(cache.statistics.decodes == decodes)
  }

  @Test @MainActor func aPlaceholderShowsWhileLoading() async throws {
    let loader = CountingLoader(delay: .milliseconds(300))
    let cache = try Self.makeCache(loader: loader)
    let placeholder = Bitmap(width: 1, height: 1, style: .gray8) { _ in }
    let entity = Entity(
      id: "slow", sourceVersion: "1", source: .url(URL(string: "test:/hubble.jpg")!))
    let photo = CachedPhoto(
      cache: cache, entity: entity, format: "screen", placeholder: placeholder)
    let browser = PhotoBrowser(photos: [photo])
    let events = browser.events()
    browser.show()
    #expect(browser.displayImage(at: 0) === placeholder)
    for await event in events { if case .loadingDidEnd = event { break } }
    // The photo now: hubble (1000x872) fitted into 60x40.
    let shown = try #require(browser.displayImage(at: 0))
    #expect(shown !== placeholder && (shown.width, shown.height) == (46, 40))
  }

  /// A family of a small and a large format, as the built-in photo family has.
  static func makeThumbAndScreenCache() throws -> ImageCache {
    let formats = [
      try ImageFormat(
        name: "thumb", family: "photo", width: 16, height: 16, style: .bgr32,
        pipeline: "fill"),
      try ImageFormat(
        name: "screen", family: "photo", width: 60, height: 40, style: .bgr32, pipeline: "fit"),
    ]
    return try ImageCache(
      configuration: .init(directory: try Fixtures.temporaryFolder(), formats: formats))
  }

  @Test @MainActor func aPlaceholderFormatIsItsEntryFromTheMomentItLands() async throws {
    let cache = try Self.makeThumbAndScreenCache()
    let entity = Entity(id: "rocket", sourceVersion: "1", source: .file(Self.bundled("rocket.jpg")))
    let grey = Bitmap(width: 1, height: 1, style: .gray8) { _ in }
    let photo = CachedPhoto(
      cache: cache, entity: entity, format: "screen", placeholderFormat: "thumb")
    let withFallback = CachedPhoto(
      cache: cache, entity: entity, format: "screen", placeholder: grey,
      placeholderFormat: "thumb")
    let browser = PhotoBrowser(photos: [photo, withFallback])
    #expect(photo.placeholderImage == nil && browser.displayImage(at: 0) == nil)
    #expect(withFallback.placeholderImage === grey && browser.displayImage(at: 1) === grey)

    // The small format alone lands (as a scrubber's thumbnails or a prefetch fill it).
    let filled = try await cache.image(for: entity, format: "thumb", wholeFamily: false)
    #expect(!cache.contains(entity, format: "screen"))
    let decodes = cache.statistics.decodes
    let entry = try #require(
      cache.table(format: "thumb")?.bitmap(entityID: "rocket", sourceVersion: "1"))
    for shown in [
      photo.placeholderImage, withFallback.placeholderImage, browser.displayImage(at: 0),
    ] {
      // The table entry itself (its mapped bytes, no copy), with the pixels the fill wrote.
      let shown = try #require(shown)
      #expect(shown.bytes.baseAddress == entry.bytes.baseAddress)
      #expect((shown.width, shown.height) == (16, 16))
      #expect([UInt8](shown.bytes) == [UInt8](filled.bytes))
    }
    #expect(cache.statistics.decodes == decodes)  // reading placeholders decodes nothing
    #expect(photo.underlyingImage == nil)

    // A format the cache does not keep gives no placeholder (and the fixed one if given).
    let unknown = CachedPhoto(
      cache: cache, entity: entity, format: "screen", placeholder: grey, placeholderFormat: "poster"
    )
    #expect(unknown.placeholderImage === grey)
  }

  @Test func aVideoHasNoUnderlyingImage() async {
    let video = VideoPhoto(url: URL(string: "file:///clips/launch.mp4")!, caption: "Launch")
    #expect(video.underlyingImage == nil && video.videoURL != nil)
    #expect(
      await loadAndWait(video)
        == .loadingDidEnd(
          succeeded: false, error: "file:///clips/launch.mp4 is a video: it has no image to load"))
  }
}

/// Serves the bundled photo a `test:` URL names, after a delay, counting loads.
final class CountingLoader: SourceLoader, Sendable {
  let delay: Duration
  private let count = Lock(0)
  init(delay: Duration = .milliseconds(100)) { self.delay = delay }
  var loads: Int { count.withLock { $0 } }

  func load(_ url: URL) async throws -> [UInt8] {
    count.withLock { $0 += 1 }
    try await Task.sleep(for: delay)
    return try [UInt8](
      Data(contentsOf: URL(fileURLWithPath: PhotoTests.bundled(url.lastPathComponent))))
  }
}

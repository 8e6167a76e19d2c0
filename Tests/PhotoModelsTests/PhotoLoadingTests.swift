import Foundation
import ImageCaching
import ImageTables
import Synchronization
import Testing

@testable import PhotoModels

/// A photo whose load hands back an image decoded beforehand: cheap enough to start
/// thousands of loads a second, so the race between loads and unloads is what is tested.
final class StressPhoto: Photo {
  let image: Bitmap
  let loading = PhotoLoading()

  init(image: Bitmap) { self.image = image }

  var underlyingImage: Bitmap? { loading.image }
  var loadProgress: Double { loading.progress }
  var isLoading: Bool { loading.isLoading }
  func loadUnderlyingImage() {
    let image = image
    loading.load(owner: self) {
      await Task.yield()
      return image
    }
  }
  func unloadUnderlyingImage() { loading.unload(owner: self) }
  func events() -> AsyncStream<PhotoEvent> { loading.events() }
}

/// Only what IDMPhoto requires: the optional members take the protocol's defaults.
final class MinimalPhoto: Photo {
  var underlyingImage: Bitmap? { nil }
  var loadProgress: Double { 0 }
  var isLoading: Bool { false }
  func loadUnderlyingImage() {}
  func unloadUnderlyingImage() {}
  func events() -> AsyncStream<PhotoEvent> { AsyncStream { $0.finish() } }
}

@Suite("Photo loading", .timeLimit(.minutes(1)))
struct PhotoLoadingTests {
  /// Counts the load ends a photo reports, on its event stream and by notification.
  final class EndCounter: Sendable {
    final class Tally: Sendable {
      let counts = Mutex((events: 0, failures: [String](), notifications: 0))
    }
    private let tally = Tally()
    nonisolated(unsafe) private let observer: any NSObjectProtocol
    private let listener: Task<Void, Never>

    init(_ photo: any Photo) {
      let tally = tally
      let stream = photo.events()
      listener = Task {
        for await event in stream {
          guard case .loadingDidEnd(let succeeded, let error) = event else { continue }
          tally.counts.withLock {
            $0.events += 1
            if !succeeded { $0.failures.append(error ?? "") }
          }
        }
      }
      observer = NotificationCenter.default.addObserver(
        forName: .photoLoadingDidEnd, object: photo, queue: nil
      ) { _ in tally.counts.withLock { $0.notifications += 1 } }
    }

    deinit {
      listener.cancel()
      NotificationCenter.default.removeObserver(observer)
    }

    var events: Int { tally.counts.withLock { $0.events } }
    var notifications: Int { tally.counts.withLock { $0.notifications } }
    var failures: [String] { tally.counts.withLock { $0.failures } }

    /// Waits (up to 20 s) until `ends` ends have been delivered both ways.
    func waitFor(_ ends: Int) async {
      for _ in 0..<2000 where events < ends || notifications < ends {
        try? await Task.sleep(for: .milliseconds(10))
      }
    }
  }

  static func coffee() async throws -> Bitmap {
    let file = FilePhoto(path: PhotoTests.bundled("coffee.png"), width: 60, height: 60)
    let events = file.events()
    file.loadUnderlyingImage()
    for await event in events { if case .loadingDidEnd = event { break } }
    return try #require(file.underlyingImage)
  }

  @Test func fourThreadsLoadingAndUnloadingOnePhotoForASecondNeverCrashAndEveryLoadEnds()
    async throws
  {
    let image = try await Self.coffee()
    let photo = StressPhoto(image: image)
    let ends = EndCounter(photo)
    let deadline = Date().addingTimeInterval(1)
    let operations = Mutex(0)
    let group = DispatchGroup()
    for seed in 0..<4 {
      group.enter()
      Thread {
        var generator = SystemRandomNumberGenerator()
        var count = 0
        while Date() < deadline {
          // Threads 0 and 1 mostly load, 2 and 3 mostly unload; all do both.
          if Int.random(in: 0..<4, using: &generator) < (seed < 2 ? 3 : 1) {
            photo.loadUnderlyingImage()
          } else {
            photo.unloadUnderlyingImage()
          }
          count += 1
        }
        operations.withLock { $0 += count }
        group.leave()
      }.start()
    }
    await withCheckedContinuation { done in group.notify(queue: .global()) { done.resume() } }
    // The last load ends: one more, after the storm, ends with the image.
    photo.loadUnderlyingImage()
    let (started, atOnce) = photo.loading.counts
    await ends.waitFor(started + atOnce)
    // The storm happened (figures of a shared 2-core machine are far higher than this).
    #expect(operations.withLock { $0 } > 1_000)
    #expect(started > 10, "loads started: \(started)")
    // Every load that started ended exactly once, and so did every call answered at once.
    #expect(ends.events == started + atOnce)
    #expect(ends.notifications == started + atOnce)
    // Unloads cut loads short, and that is the only way a load of this photo fails.
    #expect(!ends.failures.isEmpty)
    #expect(ends.failures.allSatisfy { $0 == PhotoError.unloaded.description })
    #expect(!photo.isLoading)
    let loaded = try #require(photo.underlyingImage)
    #expect(loaded === image && loaded.width == 60 && loaded.height == 40)
  }

  @Test func aLoadCutShortByAnUnloadEndsUnsuccessfullyWithTheReasonUnloaded() async throws {
    let loader = CountingLoader(delay: .milliseconds(300))
    let cache = try PhotoTests.makeCache(loader: loader)
    let entity = Entity(
      id: "cut", sourceVersion: "1", source: .url(URL(string: "test:/chelsea.png")!))
    let photo = CachedPhoto(cache: cache, entity: entity, format: "screen")
    let ends = EndCounter(photo)
    photo.loadUnderlyingImage()
    #expect(photo.isLoading)
    photo.unloadUnderlyingImage()
    #expect(!photo.isLoading)
    await ends.waitFor(1)
    #expect(ends.events == 1 && ends.notifications == 1)
    #expect(ends.failures == ["unloaded: the image was let go before its load ended"])
    // The cut-short load's work finishing later ends nothing a second time.
    try await Task.sleep(for: .milliseconds(600))
    #expect(loader.loads == 1)
    #expect(ends.events == 1 && ends.notifications == 1)
  }

  @Test func anUnloadWithNoLoadRunningSaysNothing() async throws {
    let photo = StressPhoto(image: try await Self.coffee())
    let ends = EndCounter(photo)
    photo.unloadUnderlyingImage()
    photo.loadUnderlyingImage()
    await ends.waitFor(1)
    photo.unloadUnderlyingImage()  // loaded, not loading: nothing is cut short
    try await Task.sleep(for: .milliseconds(100))
    #expect(ends.events == 1 && ends.failures.isEmpty && photo.underlyingImage == nil)
  }

  @Test func captionPlaceholderImageAndVideoURLAreOptional() {
    let photo = MinimalPhoto()
    #expect(photo.caption == nil && photo.placeholderImage == nil && photo.videoURL == nil)
  }
}

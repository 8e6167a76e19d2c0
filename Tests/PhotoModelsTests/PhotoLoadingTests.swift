import Foundation
import ImageCaching
import ImageTables
import Locking
import TestFixtures
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

@Suite("Photo loading", .timeLimit(.hangGuard))
struct PhotoLoadingTests {
  /// Counts the load ends a photo reports, on its event stream and by notification.
  final class EndCounter: Sendable {
    final class Tally: Sendable {
      let counts = Lock((events: 0, failures: [String](), notifications: 0))
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

    /// Waits until `ends` ends have been delivered both ways. Polls with no bound of its
    /// own: the suite's time limit ends a test whose ends never come (it cancels the
    /// test's task, and the wait stops there rather than spinning on a sleep that
    /// returns at once once cancelled).
    func waitFor(_ ends: Int) async {
      while events < ends || notifications < ends, !Task.isCancelled {
        try? await Task.sleep(for: .milliseconds(5))
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

  @Test func fourThreadsLoadingAndUnloadingOnePhotoNeverCrashAndEveryLoadEnds() async throws {
    let image = try await Self.coffee()
    let photo = StressPhoto(image: image)
    let ends = EndCounter(photo)
    let group = DispatchGroup()
    for seed in 0..<4 {
      group.enter()
      Thread {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
          // Threads 0 and 1 mostly load, 2 and 3 mostly unload; all do both.
          if Int.random(in: 0..<4, using: &generator) < (seed < 2 ? 3 : 1) {
            photo.loadUnderlyingImage()
          } else {
            photo.unloadUnderlyingImage()
          }
        }
        group.leave()
      }.start()
    }
    await withCheckedContinuation { done in group.notify(queue: .global()) { done.resume() } }
    // The last load ends: one more, after the storm, ends with the image.
    photo.loadUnderlyingImage()
    let (started, atOnce) = photo.loading.counts
    #expect(started >= 1)
    await ends.waitFor(started + atOnce)
    // Every load that started ended exactly once, and so did every call answered at once.
    #expect(ends.events == started + atOnce)
    #expect(ends.notifications == started + atOnce)
    // Unloads cut loads short, and that is the only way a load of this photo fails.
    #expect(ends.failures.allSatisfy { $0 == PhotoError.unloaded.description })
    #expect(!photo.isLoading)
    let loaded = try #require(photo.underlyingImage)
    #expect(loaded === image && loaded.width == 60 && loaded.height == 40)
  }

  @Test func aLoadCutShortByAnUnloadEndsUnsuccessfullyWithTheReasonUnloaded() async throws {
    let loader = HeldLoader()
    let cache = try PhotoTests.makeCache(loader: loader)
    let entity = Entity(
      id: "cut", sourceVersion: "1", source: .url(URL(string: "test:/chelsea.png")!))
    let photo = CachedPhoto(cache: cache, entity: entity, format: "screen")
    let ends = EndCounter(photo)
    photo.loadUnderlyingImage()
    #expect(photo.isLoading)
    await loader.gate.waitUntilArrived()
    photo.unloadUnderlyingImage()
    #expect(!photo.isLoading)
    await ends.waitFor(1)
    #expect(ends.events == 1 && ends.notifications == 1)
    #expect(ends.failures == ["unloaded: the image was let go before its load ended"])
    // The cut-short load's work finishing later ends nothing a second time: a second load
    // after it ends once more, and that is all.
    loader.gate.open()
    await loader.gate.waitUntilReturned()
    // The unload cancelled the photo's request, the only one waiting for the fill: the
    // load's task was cancelled, and the fill kept nothing.
    #expect(loader.gate.cancelledAfterPassing == 1)
    await cache.waitForFills()
    #expect(!cache.contains(entity, format: "screen"))
    photo.loadUnderlyingImage()
    await ends.waitFor(2)
    #expect(ends.events == 2 && ends.notifications == 2)
    #expect(ends.failures == ["unloaded: the image was let go before its load ended"])
    // Had the late result been kept, the second load would have been answered at once.
    #expect(photo.loading.counts == (started: 2, answeredAtOnce: 0))
    #expect(loader.loads == 2)  // the second load fetched again: the first one's was cancelled
    #expect(!photo.isLoading && photo.underlyingImage?.width == 60)
  }

  @Test func anUnloadWithNoLoadRunningSaysNothing() async throws {
    let photo = StressPhoto(image: try await Self.coffee())
    let ends = EndCounter(photo)
    photo.unloadUnderlyingImage()
    photo.loadUnderlyingImage()
    await ends.waitFor(1)
    photo.unloadUnderlyingImage()  // loaded, not loading: nothing is cut short
    #expect(photo.underlyingImage == nil)
    // Had it said something, that end would come before the next load's.
    photo.loadUnderlyingImage()
    await ends.waitFor(2)
    #expect(ends.events == 2 && ends.notifications == 2 && ends.failures.isEmpty)
    #expect(photo.loading.counts == (started: 2, answeredAtOnce: 0))
  }

  @Test func captionPlaceholderImageAndVideoURLAreOptional() {
    let photo = MinimalPhoto()
    #expect(photo.caption == nil && photo.placeholderImage == nil && photo.videoURL == nil)
  }
}

/// Serves the bundled photo a `test:` URL names, but holds every load at a ``Gate``
/// until it opens, so a test acts while a load is known to be under way.
final class HeldLoader: SourceLoader, Sendable {
  let gate = Gate()

  var loads: Int { gate.arrived }

  func load(_ url: URL) async throws -> [UInt8] {
    await gate.pass()
    defer { gate.returned() }
    return try [UInt8](
      Data(contentsOf: URL(fileURLWithPath: PhotoTests.bundled(url.lastPathComponent))))
  }
}

import Foundation
import ImageTables
import Locking
import TestFixtures
import Testing

@testable import PhotoModels

/// Why the app's source has no pixels for a photo.
enum AppSourceError: Error, CustomStringConvertible {
  case withdrawn(photo: String)

  var description: String {
    switch self {
    case .withdrawn(let photo): "\(photo): the app withdrew its pixels; ask for another photo"
    }
  }
}

/// An app's own pixel source: it holds a photo's rows in memory and copies them into a
/// new bitmap on each fetch. Fetch `n` waits at `gates[n]` (so a test acts while a load
/// is known to be under way) and fails if `n` is in `failing`.
final class AppPixelSource: Sendable {
  let name: String
  let rows: [[UInt8]]
  let width: Int
  let style: PixelStyle
  let gates: [Gate]
  let failing: Set<Int>
  private let fetched = Lock(0)

  init(name: String, copying image: Bitmap, fetches: Int, failing: Set<Int> = []) {
    self.name = name
    rows = (0..<image.height).map { [UInt8](image.row($0)) }
    width = image.width
    style = image.style
    gates = (0..<fetches).map { _ in Gate() }
    self.failing = failing
  }

  var fetches: Int { fetched.withLock { $0 } }

  func fetch(progress: PhotoLoading.ProgressReporter) async throws -> Bitmap {
    let number = fetched.withLock { count -> Int in
      defer { count += 1 }
      return count
    }
    progress.report(0.25)
    await gates[number].pass()
    defer { gates[number].returned() }
    progress.report(0.75)
    if failing.contains(number) { throw AppSourceError.withdrawn(photo: name) }
    return Bitmap(width: width, height: rows.count, style: style, entityID: name) { canvas in
      for (y, row) in rows.enumerated() { canvas.row(y).copyBytes(from: row) }
    }
  }
}

/// A photo of the app's own, built on ``PhotoLoading`` through its public API only: it
/// says where the pixels come from and forwards the rest.
final class AppPhoto: Photo {
  let source: AppPixelSource
  let loading = PhotoLoading()

  init(_ source: AppPixelSource) { self.source = source }

  var underlyingImage: Bitmap? { loading.image }
  var loadProgress: Double { loading.progress }
  var isLoading: Bool { loading.isLoading }
  var caption: String? { source.name }
  func events() -> AsyncStream<PhotoEvent> { loading.events() }
  func unloadUnderlyingImage() { loading.unload(owner: self) }

  func loadUnderlyingImage() {
    let source = source
    loading.load(owner: self) { progress in try await source.fetch(progress: progress) }
  }
}

/// Every event a photo sends, in order, and the notifications posted for it.
final class EventRecorder: Sendable {
  final class Log: Sendable {
    let entries = Lock((events: [PhotoEvent](), notifications: 0))
  }
  private let log = Log()
  nonisolated(unsafe) private let observer: any NSObjectProtocol
  let listener: Task<Void, Never>

  init(_ photo: any Photo) {
    let log = log
    let stream = photo.events()
    listener = Task {
      for await event in stream { log.entries.withLock { $0.events.append(event) } }
    }
    observer = NotificationCenter.default.addObserver(
      forName: .photoLoadingDidEnd, object: photo, queue: nil
    ) { _ in log.entries.withLock { $0.notifications += 1 } }
  }

  deinit { NotificationCenter.default.removeObserver(observer) }

  var events: [PhotoEvent] { log.entries.withLock { $0.events } }
  var notifications: Int { log.entries.withLock { $0.notifications } }

  /// Waits until `count` events and `ends` notifications have come (an event is sent
  /// before its notification is posted; the suite's time limit ends a wait for events that
  /// never come).
  func waitFor(_ count: Int, ends: Int) async {
    while events.count < count || notifications < ends, !Task.isCancelled {
      try? await Task.sleep(for: .milliseconds(2))
    }
  }
}

@Suite("A custom photo on PhotoLoading", .timeLimit(.hangGuard))
struct CustomPhotoTests {
  static let unloaded = PhotoEvent.loadingDidEnd(
    succeeded: false, error: "unloaded: the image was let go before its load ended")
  static let loaded = PhotoEvent.loadingDidEnd(succeeded: true, error: nil)

  /// The photo's rows are the source photo's, byte for byte (a copy, not the same bytes).
  static func expectPixels(of photo: AppPhoto, equal reference: Bitmap) throws {
    let image = try #require(photo.underlyingImage)
    #expect((image.width, image.height, image.style) == (60, 40, reference.style))
    #expect(image.bytes.baseAddress != reference.bytes.baseAddress)
    for y in 0..<reference.height { #expect([UInt8](image.row(y)) == [UInt8](reference.row(y))) }
  }

  @Test func itLoadsOnceUnloadsMidLoadReloadsAndFailsWithTheStatesEvents() async throws {
    let reference = try await PhotoLoadingTests.coffee()  // coffee.png fitted to 60x40
    let source = AppPixelSource(
      name: "app-photo-7", copying: reference, fetches: 4, failing: [3])
    let photo = AppPhoto(source)
    let recorder = EventRecorder(photo)
    #expect(photo.underlyingImage == nil && !photo.isLoading && photo.loadProgress == 0)

    // A load, and a second one while it runs: one fetch.
    photo.loadUnderlyingImage()
    await source.gates[0].waitUntilArrived()
    photo.loadUnderlyingImage()
    #expect(photo.isLoading && photo.loadProgress == 0.25 && source.fetches == 1)
    source.gates[0].open()
    await recorder.waitFor(4, ends: 1)
    #expect(recorder.events == [.progress(0.25), .progress(0.75), .progress(1), Self.loaded])
    #expect(recorder.notifications == 1)
    #expect(!photo.isLoading && photo.loadProgress == 1 && source.fetches == 1)
    try Self.expectPixels(of: photo, equal: reference)

    // Loaded: a load ends at once, with no fetch; an unload of a loaded photo says nothing.
    photo.loadUnderlyingImage()
    await recorder.waitFor(6, ends: 2)
    #expect(recorder.events.suffix(2) == [.progress(1), Self.loaded] && source.fetches == 1)
    photo.unloadUnderlyingImage()
    #expect(photo.underlyingImage == nil && photo.loadProgress == 0)

    // An unload while loading ends the load at once, unsuccessfully; the fetch's result,
    // when it comes, is dropped, and so is the progress it reports after the unload.
    photo.loadUnderlyingImage()
    await source.gates[1].waitUntilArrived()
    photo.unloadUnderlyingImage()
    #expect(!photo.isLoading && photo.underlyingImage == nil && photo.loadProgress == 0)
    await recorder.waitFor(8, ends: 3)
    #expect(recorder.events.suffix(2) == [.progress(0.25), Self.unloaded])
    #expect(recorder.notifications == 3)
    source.gates[1].open()
    await source.gates[1].waitUntilReturned()

    // A reload fetches again; had anything of the dropped fetch been kept or sent, the
    // reload would end at once or these would not be its events alone.
    photo.loadUnderlyingImage()
    await source.gates[2].waitUntilArrived()
    #expect(photo.underlyingImage == nil && photo.isLoading && source.fetches == 3)
    source.gates[2].open()
    await recorder.waitFor(12, ends: 4)
    #expect(
      recorder.events.dropFirst(8) == [.progress(0.25), .progress(0.75), .progress(1), Self.loaded])
    #expect(recorder.notifications == 4)
    try Self.expectPixels(of: photo, equal: reference)

    // A failure says why, keeps no image and puts the progress back to 0.
    photo.unloadUnderlyingImage()
    photo.loadUnderlyingImage()
    source.gates[3].open()
    await recorder.waitFor(15, ends: 5)
    #expect(
      recorder.events.dropFirst(12) == [
        .progress(0.25), .progress(0.75),
        .loadingDidEnd(
          succeeded: false,
          error: "app-photo-7: the app withdrew its pixels; ask for another photo"),
      ])
    #expect(recorder.notifications == 5)
    #expect(photo.underlyingImage == nil && !photo.isLoading && photo.loadProgress == 0)
    #expect(source.fetches == 4)

    // The recorder's stream ends with its task, and the photo lets go of it.
    #expect(photo.loading.subscriberCount == 1)
    recorder.listener.cancel()
    await recorder.listener.value
    #expect(photo.loading.subscriberCount == 0)
  }

  @Test func aPhotoThatIsInMemoryFromTheStartEndsEveryLoadAtOnce() async throws {
    let reference = try await PhotoLoadingTests.coffee()
    let loading = PhotoLoading(image: reference)
    let photo = MinimalPhoto()
    #expect(loading.image === reference && loading.progress == 1 && !loading.isLoading)
    let events = loading.events()
    loading.load(owner: photo) { throw AppSourceError.withdrawn(photo: "never fetched") }
    var seen: [PhotoEvent] = []
    for await event in events {
      seen.append(event)
      if case .loadingDidEnd = event { break }
    }
    #expect(seen == [.progress(1), Self.loaded])
    #expect(loading.counts == (started: 0, answeredAtOnce: 1))
  }

  @Test func aPhotosStreamsEndWithTheirConsumersAndFinishWhenItGoes() async throws {
    var loading: PhotoLoading? = PhotoLoading()
    let kept = loading!.events()
    _ = loading!.events()  // dropped unread: it ends at once
    #expect(loading!.subscriberCount == 1)
    let reader = Task {
      var count = 0
      for await _ in kept { count += 1 }
      return count
    }
    loading = nil  // the stream still open finishes: the reader's loop ends
    #expect(await reader.value == 0)
  }
}

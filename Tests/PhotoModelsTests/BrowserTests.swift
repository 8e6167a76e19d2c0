import Foundation
import ImageTables
import Locking
import TestFixtures
import Testing

@testable import PhotoModels

/// A photo that records what the browser asks of it; loads end when told to.
final class ProbePhoto: Photo, @unchecked Sendable {
  let name: String
  let caption: String?
  let placeholderImage: Bitmap? = nil
  let videoURL: URL? = nil
  let loading: PhotoLoading
  private let record = Lock((loads: 0, unloads: 0))

  init(_ name: String, caption: String? = nil, inMemory: Bool = false) {
    self.name = name
    self.caption = caption
    loading =
      inMemory
      ? PhotoLoading(image: Bitmap(width: 2, height: 2, style: .gray8, entityID: name) { _ in })
      : PhotoLoading()
  }

  var loads: Int { record.withLock { $0.loads } }
  var unloads: Int { record.withLock { $0.unloads } }
  var underlyingImage: Bitmap? { loading.image }
  var loadProgress: Double { loading.progress }
  var isLoading: Bool { loading.isLoading }

  func loadUnderlyingImage() {
    record.withLock { $0.loads += 1 }
    let name = name
    loading.load(owner: self) {
      if name.hasPrefix("bad") { throw PhotoError.unloaded }
      return Bitmap(width: 2, height: 2, style: .gray8, entityID: name) { _ in }
    }
  }

  func unloadUnderlyingImage() {
    record.withLock { $0.unloads += 1 }
    loading.unload(owner: self)
  }

  func events() -> AsyncStream<PhotoEvent> { loading.events() }
}

@MainActor
final class PhotoList: PhotoBrowserDataSource {
  var photos: [ProbePhoto]
  init(_ photos: [ProbePhoto]) { self.photos = photos }
  func numberOfPhotos(in browser: PhotoBrowser) -> Int { photos.count }
  func photo(at index: Int, in browser: PhotoBrowser) -> any Photo { photos[index] }
}

@Suite("Photo browser", .timeLimit(.hangGuard))
@MainActor
struct BrowserTests {
  static func photos(_ count: Int) -> [ProbePhoto] {
    (0..<count).map { ProbePhoto("p\($0)", caption: "Photo \($0)") }
  }

  @Test func theWindowLoadsAndUnloadsAsAUserPages() {
    let photos = Self.photos(12)
    let browser = PhotoBrowser(photos: photos)
    browser.show()
    #expect(browser.loadedIndices == [0, 1])
    for index in 1..<12 {
      browser.next()
      #expect(browser.currentIndex == index)
      let expected = Array(max(0, index - 1)...min(11, index + 1))
      #expect(browser.loadedIndices == expected, "at \(index)")
    }
    browser.next()  // past the last: stays
    #expect(browser.currentIndex == 11)
    for index in stride(from: 10, through: 0, by: -1) {
      browser.previous()
      #expect(browser.loadedIndices == Array(max(0, index - 1)...min(11, index + 1)))
    }
    // Every photo was loaded and unloaded as the window passed.
    #expect(photos[5].loads == 2 && photos[5].unloads >= 1)
    #expect(photos[0].unloads >= 1)
  }

  @Test func loadUnderlyingImageAndNotifyOnlyWhenUnderlyingImageIsNil() async {
    let photos = [
      ProbePhoto("a", inMemory: true), ProbePhoto("b"), ProbePhoto("c", inMemory: true),
    ]
    let browser = PhotoBrowser(photos: photos, initialIndex: 1)
    browser.show()
    #expect(photos.map(\.loads) == [0, 1, 0])
    #expect(browser.loadedIndices == [0, 1, 2])
    // They are in the window all the same: paging away lets them go.
    browser.jump(to: 0)
    #expect(photos[2].unloads == 1 && browser.loadedIndices == [0, 1])
  }

  @Test func releaseMemoryLetsGoOfAllButTheCurrentPhoto() async {
    let photos = Self.photos(12)
    let browser = PhotoBrowser(photos: photos, initialIndex: 5)
    let events = browser.events()
    browser.show()
    var ended: Set<Int> = []
    for await event in events {
      if case .loadingDidEnd(let index) = event { ended.insert(index) }
      if ended == [4, 5, 6] { break }
    }
    #expect(photos[4...6].allSatisfy { $0.underlyingImage != nil })
    browser.releaseMemory()
    #expect(browser.loadedIndices == [5])
    #expect(photos[5].underlyingImage != nil && photos[5].unloads == 0)
    #expect(photos[4].underlyingImage == nil && photos[6].underlyingImage == nil)
    // Every other photo was told to let go, as IDMPhotoBrowser's memory warning does.
    #expect(photos.enumerated().allSatisfy { $0.offset == 5 || $0.element.unloads == 1 })
    // Paging on loads the new window again; the current photo is not loaded twice.
    browser.next()
    #expect(browser.loadedIndices == [5, 6, 7])
    #expect(photos[5].loads == 1 && photos[6].loads == 2 && photos[7].loads == 1)
  }

  @Test func theCurrentPhotoLoadsFirst() {
    let photos = Self.photos(10)
    let browser = PhotoBrowser(photos: photos, initialIndex: 5, preloadWindow: 2)
    browser.show()
    #expect(browser.loadedIndices == [3, 4, 5, 6, 7])
    #expect(photos[5].loads == 1 && photos[4].loads == 1 && photos[7].loads == 1)
  }

  @Test func aThousandPhotosStayWithinTheMemoryBound() {
    let photos = Self.photos(1000)
    let browser = PhotoBrowser(photos: photos, preloadWindow: 2)
    browser.show()
    var most = 0
    for _ in 0..<999 {
      browser.next()
      let loadedNow = photos.filter { $0.underlyingImage != nil || $0.isLoading }.count
      most = max(most, browser.loadedIndices.count, loadedNow)
    }
    browser.jump(to: 0)
    browser.jump(to: 600)
    most = max(most, browser.loadedIndices.count)
    #expect(most <= 5)
    #expect(browser.loadedIndices == [598, 599, 600, 601, 602])
  }

  @Test func zeroPhotosAndOutOfRangeIndicesAreSafe() {
    let empty = PhotoBrowser(photos: [], initialIndex: 7)
    empty.show()
    empty.next()
    empty.previous()
    empty.jump(to: -3)
    #expect(empty.currentIndex == 0 && empty.currentPhoto == nil && empty.counterText == nil)
    #expect(empty.loadedIndices.isEmpty && empty.contentWidth(viewWidth: 320) == 0)
    let browser = PhotoBrowser(photos: Self.photos(3), initialIndex: 99)
    #expect(browser.currentIndex == 2)
    browser.jump(to: -5)
    #expect(browser.currentIndex == 0)
  }

  @Test func captionsCounterAndPages() {
    let browser = PhotoBrowser(photos: Self.photos(12), initialIndex: 2)
    #expect(browser.caption == "Photo 2")
    #expect(browser.counterText == "3 of 12")
    #expect(PhotoBrowser(photos: Self.photos(1)).counterText == nil)
    #expect(
      browser.pageFrame(at: 0, viewWidth: 320, viewHeight: 480)
        == Frame(x: 10, y: 0, width: 320, height: 480))
    #expect(
      browser.pageFrame(at: 3, viewWidth: 320, viewHeight: 480)
        == Frame(x: 1030, y: 0, width: 320, height: 480))
    #expect(browser.contentWidth(viewWidth: 320) == 12 * 340)
  }

  @Test func eventsFireOncePerChange() async {
    let browser = PhotoBrowser(photos: Self.photos(5) + [ProbePhoto("bad")], preloadWindow: 0)
    let stream = browser.events()
    browser.show()
    browser.jump(to: 0)  // no change: no event
    browser.next()
    browser.next()
    browser.jump(to: 5)
    var shown: [Int] = []
    var ended: [Int] = []
    var failed: [Int] = []
    for await event in stream {
      switch event {
      case .didShowPhoto(let index): shown.append(index)
      case .loadingDidEnd(let index): ended.append(index)
      case .loadFailed(let index, _): failed.append(index)
      case .progress: break  // a photo's own progress, not a change of the browser's
      }
      if failed == [5] { break }
    }
    #expect(shown == [0, 1, 2, 5])
    #expect(failed == [5])
    #expect(Set(ended).isSubset(of: [0, 1, 2]))
  }

  /// What each consumer of a browser's streams received, on the main actor.
  @MainActor final class Received {
    var first: [PhotoBrowserEvent] = []
    var second: [PhotoBrowserEvent] = []
    var breakerSubscribed = false
  }

  @Test func aStreamEndsWithItsConsumerAndTheOthersStillGetEvents() async {
    let browser = PhotoBrowser(photos: Self.photos(4), preloadWindow: 0)
    let received = Received()
    let first = browser.events()
    let second = browser.events()
    _ = browser.events()  // dropped unread: the browser lets go of it at once
    #expect(browser.subscriberCount == 2)
    let firstReader = Task { for await event in first { received.first.append(event) } }
    let secondReader = Task { for await event in second { received.second.append(event) } }
    // A consumer that stops after its first event; its stream is a local of its task.
    let breaker = Task { () -> PhotoBrowserEvent? in
      let stream = browser.events()
      received.breakerSubscribed = true
      for await event in stream { return event }
      return nil
    }
    while !received.breakerSubscribed { await Task.yield() }
    #expect(browser.subscriberCount == 3)
    browser.show()
    #expect(await breaker.value == .didShowPhoto(index: 0))
    #expect(browser.subscriberCount == 2)
    while !received.first.contains(.didShowPhoto(index: 0)) { await Task.yield() }
    firstReader.cancel()
    await firstReader.value
    #expect(browser.subscriberCount == 1)
    browser.jump(to: 2)
    while !received.second.contains(.didShowPhoto(index: 2)) { await Task.yield() }
    #expect(!received.first.contains(.didShowPhoto(index: 2)))
    #expect(
      received.second.filter { if case .didShowPhoto = $0 { true } else { false } } == [
        .didShowPhoto(index: 0), .didShowPhoto(index: 2),
      ])
    secondReader.cancel()
    await secondReader.value
    #expect(browser.subscriberCount == 0)
  }

  @Test func theBrowserStopsFollowingAPhotoItLetsGoAndFinishesItsStreamsWhenItGoes() async {
    let photos = Self.photos(5)
    var browser: PhotoBrowser? = PhotoBrowser(photos: photos, preloadWindow: 0)
    let stream = browser!.events()
    browser!.show()
    #expect(browser!.listenerCount == 1 && photos[0].loading.subscriberCount == 1)
    browser!.jump(to: 3)  // photo 0 leaves the window: its listener goes
    #expect(browser!.listenerCount == 1 && photos[3].loading.subscriberCount == 1)
    while photos[0].loading.subscriberCount > 0 { await Task.yield() }
    browser = nil  // the photo it follows is let go; its own streams finish
    while photos[3].loading.subscriberCount > 0 { await Task.yield() }
    var shown: [Int] = []
    for await event in stream { if case .didShowPhoto(let index) = event { shown.append(index) } }
    #expect(shown == [0, 3])
    #expect(photos.allSatisfy { $0.loading.subscriberCount == 0 })
  }

  @Test func reloadKeepsTheCurrentPhotoThroughInsertsAndRemovals() {
    let photos = Self.photos(6)
    let list = PhotoList(photos)
    let browser = PhotoBrowser(dataSource: list, initialIndex: 3)
    browser.show()
    let current = photos[3]
    list.photos.insert(ProbePhoto("new"), at: 0)
    list.photos.insert(ProbePhoto("new2"), at: 1)
    list.photos.remove(at: 7)  // photos[5]
    browser.reloadData()
    #expect(browser.currentIndex == 5)
    #expect(browser.currentPhoto === current)
    #expect(browser.loadedIndices == [4, 5, 6])
    // The current photo removed: the index is clamped.
    list.photos.removeAll { $0 === current }
    list.photos.removeLast(3)
    browser.reloadData()
    #expect(browser.currentIndex == 2)
    #expect(browser.numberOfPhotos == 3)
  }
}

import Foundation
import ImageTables

/// A headless photo browser (IDMPhotoBrowser, MWPhotoBrowser): which photo is shown,
/// where each page is, which photos are loaded, captions, the counter, and events.
///
/// The current photo loads first, then its neighbours within `preloadWindow` on each
/// side; photos outside the window are unloaded, so at most 2 x window + 1 photos are
/// loaded however far a user pages.
///
/// <!-- snippet context: let photos = (1...12).map { -->
/// <!-- snippet context:   FilePhoto(path: "photos/\($0).jpg", width: 640, height: 480) -->
/// <!-- snippet context: } -->
/// ```swift
/// let browser = PhotoBrowser(photos: photos, initialIndex: 3)
/// browser.show()
/// browser.next()
/// browser.counterText  // "5 of 12"
/// ```
@MainActor
public final class PhotoBrowser {
  /// Space on each side of every page, in points, as the original pads its pages.
  public static let pagePadding = 10

  public weak var dataSource: (any PhotoBrowserDataSource)?
  private var fixedPhotos: [any Photo]
  public let preloadWindow: Int
  public private(set) var currentIndex: Int
  private var shownIndex: Int? = nil
  /// The photos of the window: asked to load, or found in memory, and not let go since.
  private var loaded: [ObjectIdentifier: any Photo] = [:]
  private var listeners: [ObjectIdentifier: Task<Void, Never>] = [:]
  private let subscribers = EventSubscribers<PhotoBrowserEvent>()
  /// The photos in index order, as last read from the data source.
  private var photos: [any Photo] = []

  /// A browser over a fixed list of photos.
  public init(photos: [any Photo], initialIndex: Int = 0, preloadWindow: Int = 1) {
    fixedPhotos = photos
    self.preloadWindow = max(0, preloadWindow)
    currentIndex = 0
    reloadPhotos()
    currentIndex = clamp(initialIndex)
  }

  /// A browser that asks `dataSource` for its photos.
  public init(dataSource: any PhotoBrowserDataSource, initialIndex: Int = 0, preloadWindow: Int = 1)
  {
    fixedPhotos = []
    self.dataSource = dataSource
    self.preloadWindow = max(0, preloadWindow)
    currentIndex = 0
    reloadPhotos()
    currentIndex = clamp(initialIndex)
  }

  public var numberOfPhotos: Int { photos.count }

  public func photo(at index: Int) -> (any Photo)? {
    photos.indices.contains(index) ? photos[index] : nil
  }

  /// The photo shown now, or nil when there are none.
  public var currentPhoto: (any Photo)? { photo(at: currentIndex) }

  /// The current photo's caption.
  public var caption: String? { currentPhoto?.caption }

  /// What a page shows now: the photo's image if it is loaded (or in the cache), else
  /// its placeholder while it loads.
  public func displayImage(at index: Int) -> Bitmap? {
    guard let photo = photo(at: index) else { return nil }
    return photo.underlyingImage ?? photo.placeholderImage
  }

  /// How far the current photo's load has come, 0 to 1, while it loads (a page draws it
  /// under the placeholder, as MWPhotoBrowser's progress view); nil when it is not
  /// loading (loaded, failed, or not asked to load) or there is no photo. Each change of a
  /// loading photo of the window is also ``PhotoBrowserEvent/progress(index:fraction:)``.
  public var currentProgress: Double? {
    guard let photo = currentPhoto, photo.isLoading else { return nil }
    return photo.loadProgress
  }

  /// "3 of 12"; nil for one photo or none.
  public var counterText: String? {
    numberOfPhotos > 1 ? "\(currentIndex + 1) of \(numberOfPhotos)" : nil
  }

  /// Indices of the photos the browser holds in its window now: loaded, loading, or
  /// found in memory when the window reached them.
  public var loadedIndices: [Int] {
    photos.indices.filter { loaded[ObjectIdentifier(photos[$0])] != nil }
  }

  /// Shows the current photo: loads it and its neighbours and says it is shown.
  public func show() { showCurrent() }

  public func next() { jump(to: currentIndex + 1) }
  public func previous() { jump(to: currentIndex - 1) }

  /// Shows the photo at `index`, clamped to the photos there are.
  public func jump(to index: Int) {
    currentIndex = clamp(index)
    showCurrent()
  }

  /// Where page `index` lies in the paging view for a view `width` by `height`: pages are
  /// `width` wide with `pagePadding` on each side.
  public func pageFrame(at index: Int, viewWidth width: Int, viewHeight height: Int) -> Frame {
    Frame(
      x: (width + 2 * Self.pagePadding) * index + Self.pagePadding, y: 0, width: width,
      height: height)
  }

  /// The paging view's content width for a view `width` wide.
  public func contentWidth(viewWidth width: Int) -> Int {
    (width + 2 * Self.pagePadding) * numberOfPhotos
  }

  /// Reads the photos again (some were inserted or removed); the current photo stays the
  /// current one where it still is, else the index is clamped.
  public func reloadData() {
    let current = currentPhoto.map(ObjectIdentifier.init)
    reloadPhotos()
    if let current, let index = photos.firstIndex(where: { ObjectIdentifier($0) == current }) {
      currentIndex = index
    } else {
      currentIndex = clamp(currentIndex)
    }
    if shownIndex != nil { showCurrent() }
  }

  /// Lets go of every photo's image but the current one's, for memory pressure
  /// (IDMPhotoBrowser's `didReceiveMemoryWarning`). IDMPhotoBrowser unloads every photo
  /// and its page keeps showing the image it holds; a headless browser holds no image,
  /// so the current photo stays loaded and nothing on screen changes. The neighbours
  /// load again when the user pages (or on ``show()``).
  ///
  /// Photos this browser did not load are unloaded too, as IDMPhotoBrowser does.
  public func releaseMemory() {
    let current = currentPhoto.map(ObjectIdentifier.init)
    for photo in photos where ObjectIdentifier(photo) != current {
      let id = ObjectIdentifier(photo)
      listeners.removeValue(forKey: id)?.cancel()
      loaded[id] = nil
      photo.unloadUnderlyingImage()
    }
  }

  /// A new stream of the browser's events, from now on. It ends when its consumer does
  /// (the task reading it is cancelled or stops, or the stream is dropped: the browser
  /// lets go of it then), and finishes when the browser goes.
  public func events() -> AsyncStream<PhotoBrowserEvent> { subscribers.stream() }

  /// The streams from ``events()`` whose consumers have not ended (for tests).
  var subscriberCount: Int { subscribers.count }

  /// The photos whose events the browser follows now: those of its window it asked to
  /// load (for tests).
  var listenerCount: Int { listeners.count }

  /// Stops following the photos' events: their streams end, and the photos let go of them.
  /// (Not an `isolated deinit`, which needs a newer runtime on Apple platforms: the
  /// listeners are `Sendable` and cancelling a task is thread-safe.)
  deinit {
    for listener in listeners.values { listener.cancel() }
  }

  // MARK: Loading

  private func showCurrent() {
    guard !photos.isEmpty else { return }
    if shownIndex != currentIndex || shownIndex == nil {
      shownIndex = currentIndex
      send(.didShowPhoto(index: currentIndex))
    }
    let window =
      max(0, currentIndex - preloadWindow)...min(photos.count - 1, currentIndex + preloadWindow)
    let keep = Set(window.map { ObjectIdentifier(photos[$0]) })
    for id in loaded.keys where !keep.contains(id) { release(id) }
    // The current photo first, then its neighbours, nearest first.
    var order = [currentIndex]
    for distance in 1...max(1, preloadWindow) where preloadWindow > 0 {
      order += [currentIndex - distance, currentIndex + distance].filter(window.contains)
    }
    for index in order { load(photos[index]) }
  }

  /// Holds `photo` in the window and, if its image is not in memory, asks it to load
  /// (IDMPhotoBrowser loads only photos whose `underlyingImage` is nil).
  private func load(_ photo: any Photo) {
    let id = ObjectIdentifier(photo)
    guard loaded[id] == nil else { return }
    loaded[id] = photo
    guard photo.underlyingImage == nil else { return }
    let stream = photo.events()
    listeners[id] = Task { [weak self] in
      for await event in stream {
        switch event {
        case .loadingDidEnd(let succeeded, let error):
          self?.photoDidEnd(id, succeeded: succeeded, error: error)
        case .progress(let fraction): self?.photoDidProgress(id, fraction: fraction)
        }
      }
    }
    photo.loadUnderlyingImage()
  }

  /// Stops holding `photo` and lets its image go; its listener goes first, so a load
  /// this cuts short is not reported as the browser's failure.
  private func release(_ id: ObjectIdentifier) {
    listeners.removeValue(forKey: id)?.cancel()
    loaded.removeValue(forKey: id)?.unloadUnderlyingImage()
  }

  private func photoDidEnd(_ id: ObjectIdentifier, succeeded: Bool, error: String?) {
    guard loaded[id] != nil, let index = photos.firstIndex(where: { ObjectIdentifier($0) == id })
    else { return }
    send(
      succeeded ? .loadingDidEnd(index: index) : .loadFailed(index: index, error: error ?? "failed")
    )
  }

  private func photoDidProgress(_ id: ObjectIdentifier, fraction: Double) {
    guard loaded[id] != nil, let index = photos.firstIndex(where: { ObjectIdentifier($0) == id })
    else { return }
    send(.progress(index: index, fraction: fraction))
  }

  private func send(_ event: PhotoBrowserEvent) { subscribers.send(event) }

  private func reloadPhotos() {
    if let dataSource {
      let count = max(0, dataSource.numberOfPhotos(in: self))
      photos = (0..<count).map { dataSource.photo(at: $0, in: self) }
    } else {
      photos = fixedPhotos
    }
    let present = Set(photos.map(ObjectIdentifier.init))
    for id in loaded.keys where !present.contains(id) { release(id) }
  }

  private func clamp(_ index: Int) -> Int {
    photos.isEmpty ? 0 : min(max(0, index), photos.count - 1)
  }
}

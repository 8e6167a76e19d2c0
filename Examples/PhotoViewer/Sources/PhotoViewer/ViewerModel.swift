import Foundation
import ImageCaching
import ImageProcessing
import ImageTables
import ImageToolManifest
import PhotoModels

/// The viewer without its window: a photo browser over a family's largest format and a
/// scrubber over its smallest, kept in step with each other, over a cache opened
/// read-only and read again by ``refresh()`` (photos a render commits join), the page's
/// zoom, and the background render of a folder. The window turns keys, clicks and the
/// poll timer into calls here and draws what the models say.
@MainActor
final class ViewerModel: PhotoScrubberDelegate {
  /// The scrubber strip's height, in points: the least at which Nimbus's layout gives
  /// thumbnails 32 points high (43 by 32, the selection 86 by 64), where at its 44 they
  /// were 13 high.
  static let scrubberHeight = 104

  /// How the keys page.
  enum Move {
    case next, previous, first, last
  }

  let source: ViewerSource
  let family: String
  let photos: ViewerPhotos
  let browser: PhotoBrowser
  let scrubber: PhotoScrubber
  /// How the page shows the current photo.
  var viewport = PhotoViewport()
  /// The render of the folder, when the source is one and it was started.
  private(set) var render: BackgroundRender?
  /// Called when what the window shows changed: the photo, the title or the selection.
  var didChange: () -> Void = {}
  private var listener: Task<Void, Never>?

  /// The viewer of `options`' source (a cache, or a folder with its own cache): the
  /// manifest's formats of the family, their tables opened read-only. A cache must
  /// hold the family's tables; a folder's cache may not exist yet (the render makes it).
  convenience init(
    options: ViewerOptions, environment: [String: String] = ProcessInfo.processInfo.environment,
    note: (String) -> Void = { _ in }
  ) throws {
    let manifest = try Manifest.resolve(explicit: options.manifest)
    let source = try ViewerSource.resolve(
      options, environment: environment, note: note)
    try self.init(source: source, family: options.family, manifest: manifest)
  }

  init(source: ViewerSource, family: String, manifest: Manifest) throws {
    self.source = source
    self.family = family
    let formats = manifest.formats(family: family).filter { $0.isKept(for: manifest.device) }
      .sorted { $0.pixelWidth * $0.pixelHeight < $1.pixelWidth * $1.pixelHeight }
    guard let thumb = formats.first, let screen = formats.last else {
      throw ViewerError.noFamily(name: family, families: manifest.families)
    }
    // The pipelines name the processors in each table's fingerprint: a manifest's
    // plugins must be loaded for its tables to open.
    let registry = ProcessorRegistry.withBuiltIns()
    try manifest.loadPlugins(into: registry)
    let configuration = CacheConfiguration(
      directory: source.cache, formats: formats, device: manifest.device,
      background: manifest.background, registry: registry, workers: 1,
      report: { event in FileHandle.standardError.write(Data("photo-viewer: \(event)\n".utf8)) },
      readOnly: true)
    photos = ViewerPhotos(
      configuration: configuration, screenFormat: screen.name, thumbnailFormat: thumb.name)
    if case .cache = source {
      let present = formats.contains {
        FileManager.default.fileExists(
          atPath: ImageTable.paths(formatName: $0.name, directory: source.cache).table)
      }
      guard present else {
        throw ViewerError.emptyFamily(name: family, cache: source.cache.path)
      }
      try photos.open()
    }
    _ = photos.read()
    browser = PhotoBrowser(dataSource: photos)
    scrubber = PhotoScrubber(dataSource: photos)
    scrubber.delegate = self
    scrubber.reloadData()
  }

  /// Starts the folder's render, if the source is a folder, with `imgtool`.
  func startRender(imgtool: URL, manifest: String?) throws {
    guard case .folder(let folder, let cache) = source else { return }
    let render = BackgroundRender(
      imgtool: imgtool,
      arguments: BackgroundRender.arguments(
        folder: folder, cache: cache, family: family, manifest: manifest))
    render.didChange = { [weak self] in
      guard let self else { return }
      // Its last photos land as it ends: look before saying it is done.
      if !render.isRunning { refresh() }
      didChange()
    }
    try render.start()
    self.render = render
  }

  /// Stops the folder's render (the window closes).
  func stopRender() { render?.stop() }

  /// Shows the first photo and starts following the browser's loads.
  func start() {
    let events = browser.events()
    listener = Task { [weak self] in
      for await event in events {
        guard let self else { return }
        switch event {
        case .loadingDidEnd(let index) where index == browser.currentIndex:
          didChange()
        case .loadFailed(let index, let error):
          FileHandle.standardError.write(
            Data("photo-viewer: photo \(index + 1) did not load: \(error)\n".utf8))
        default:
          break
        }
      }
    }
    browser.show()
    scrubber.setSelectedPhotoIndex(browser.currentIndex, animated: false)
  }

  /// Reads the tables again: photos a render committed since join the browser and the
  /// strip (the current photo stays the current one), new thumbnails show. Returns
  /// whether anything changed (and then has told ``didChange``).
  @discardableResult
  func refresh() -> Bool {
    let changed = photos.read()
    guard changed.photos || changed.thumbnails else { return false }
    let before = browser.currentPhoto.map(ObjectIdentifier.init)
    browser.reloadData()
    if browser.currentPhoto.map(ObjectIdentifier.init) != before { viewport.fit() }
    scrubber.reloadData()
    // Again, for the selection's thumbnail, which may have landed.
    scrubber.setSelectedPhotoIndex(nil)
    scrubber.setSelectedPhotoIndex(browser.currentIndex, animated: false)
    didChange()
    return true
  }

  /// The window's title: the browser's counter and caption, `2 of 13 - forest-path.jpg`,
  /// and while the folder renders, how far it has come.
  var title: String {
    var title = [browser.counterText, browser.caption].compactMap { $0 }.joined(separator: " - ")
    if title.isEmpty { title = "photo-viewer" }
    if let render, render.isRunning, let status = render.statusText {
      title += " (\(status))"
    }
    return title
  }

  /// What the status line says: the render's progress or outcome, or that there is
  /// nothing to show yet; nil when there is nothing to say.
  var status: String? {
    if let text = render?.statusText { return text }
    if browser.numberOfPhotos == 0 {
      return "no photos of family '\(family)' in \(source.cache.path) yet"
    }
    return nil
  }

  /// Pages the browser; the scrubber's selection follows, animated as the model says.
  func page(_ move: Move) {
    let before = browser.currentIndex
    switch move {
    case .next: browser.next()
    case .previous: browser.previous()
    case .first: browser.jump(to: 0)
    case .last: browser.jump(to: browser.numberOfPhotos - 1)
    }
    guard browser.currentIndex != before else { return }
    viewport.fit()
    scrubber.setSelectedPhotoIndex(browser.currentIndex, animated: true)
    didChange()
  }

  /// The photo the page shows now.
  var currentImage: Bitmap? { browser.displayImage(at: browser.currentIndex) }

  /// The scrubber view is now `width` points wide: the strip is laid out again, the
  /// selection placed without animation.
  func resizeScrubber(width: Int) {
    scrubber.bounds = (width, Self.scrubberHeight)
  }

  /// The system is short of memory: the browser lets go of every photo but the one
  /// shown (IDMPhotoBrowser's `didReceiveMemoryWarning`).
  func releaseMemory() {
    browser.releaseMemory()
  }

  /// Whether a press at (`x`, `y`) in the scrubber view is on the strip's thumbnails
  /// (the container, or the selection drawn over it): only such a press scrubs, one on
  /// the blank strip around them does nothing.
  func scrubberHit(x: Double, y: Double) -> Bool {
    let layout = scrubber.layout
    guard !layout.isContainerHidden else { return false }
    let container = Rect(layout.containerFrame)
    var top = container.y
    var bottom = container.y + container.height
    if let selection = scrubber.presentedSelectionFrame {
      top = min(top, selection.y)
      bottom = max(bottom, selection.y + selection.height)
    }
    return x >= container.x && x < container.x + container.width && y >= top && y < bottom
  }

  /// A click or drag at `x` in the scrubber view: the photo under it through the
  /// scrubber's touch mapping, which tells the browser through the delegate.
  func touchScrubber(atX x: Double) {
    scrubber.touch(atContainerX: x - Double(scrubber.layout.containerFrame.x))
  }

  func photoScrubberDidChangeSelection(_ scrubber: PhotoScrubber) {
    guard let index = scrubber.selectedPhotoIndex else { return }
    if index != browser.currentIndex { viewport.fit() }
    browser.jump(to: index)
    didChange()
  }

  /// Whether the scrubber's selection animation still runs now, on the scrubber's
  /// clock: while it does, the window draws the strip on every frame, each time where
  /// ``PhotoScrubber/presentedSelectionFrame`` says.
  var selectionMoves: Bool {
    guard let animation = scrubber.selectionAnimation else { return false }
    return !animation.isFinished(atElapsed: scrubber.clock() - animation.startTime)
  }

  // MARK: Zoom

  /// Zooms the current photo one level in or out (`+`, `-`, Ctrl+wheel), around the
  /// point (`x`, `y`) of a view `width` by `height` points (its centre when not given).
  func zoom(
    in zoomIn: Bool, aroundX x: Double? = nil, y: Double? = nil, width: Double, height: Double,
    pixelsPerPoint: Double
  ) {
    guard let photo = currentImage else { return }
    let now = viewport.currentZoom(
      photoWidth: photo.width, photoHeight: photo.height, width: width, height: height,
      pixelsPerPoint: pixelsPerPoint)
    zoom(
      to: PhotoViewport.step(from: now, up: zoomIn), aroundX: x, y: y, width: width,
      height: height, pixelsPerPoint: pixelsPerPoint)
  }

  /// Shows the current photo at `zoom` device pixels per pixel (1: 1:1).
  func zoom(
    to zoom: Double, aroundX x: Double? = nil, y: Double? = nil, width: Double, height: Double,
    pixelsPerPoint: Double
  ) {
    guard let photo = currentImage else { return }
    viewport.zoom(
      to: zoom, aroundX: x, y: y, photoWidth: photo.width, photoHeight: photo.height,
      width: width, height: height, pixelsPerPoint: pixelsPerPoint)
    didChange()
  }

  /// Back to the photo fitted to the window.
  func fit() {
    viewport.fit()
    didChange()
  }
}

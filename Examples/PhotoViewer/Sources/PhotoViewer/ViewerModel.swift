import Foundation
import ImageCaching
import ImageTables
import ImageToolManifest
import PhotoModels

/// The viewer without its window: a photo browser over a rendered family's largest
/// format and a scrubber over its smallest, kept in step with each other. The window
/// turns keys and clicks into calls here and draws what the models say.
@MainActor
final class ViewerModel: PhotoScrubberDelegate {
  /// Nimbus's default scrubber height, in points.
  static let scrubberHeight = 44

  /// How the keys page.
  enum Move {
    case next, previous, first, last
  }

  let browser: PhotoBrowser
  let scrubber: PhotoScrubber
  /// The scrubber holds its data source weakly; this keeps it.
  private let thumbnails: ViewerThumbnails
  /// Called when what the window shows changed: the photo, the title or the selection.
  var didChange: () -> Void = {}
  private var listener: Task<Void, Never>?

  /// Opens the cache at `options.cache` with the manifest's formats of the family and
  /// lists the photos its largest format holds, in entity order.
  init(options: ViewerOptions) throws {
    let manifest = try Manifest.resolve(explicit: options.manifest)
    let directory = manifest.cacheDirectory(override: options.cache)
    guard FileManager.default.fileExists(atPath: directory.path) else {
      throw ViewerError.noCache(path: options.cache)
    }
    let formats = manifest.formats(family: options.family)
      .sorted { $0.pixelWidth * $0.pixelHeight < $1.pixelWidth * $1.pixelHeight }
    guard let thumb = formats.first, let screen = formats.last else {
      throw ViewerError.noFamily(name: options.family, families: manifest.families)
    }
    let cache = try ImageCache(
      configuration: CacheConfiguration(
        directory: directory, formats: formats, device: manifest.device,
        background: manifest.background,
        report: { event in FileHandle.standardError.write(Data("photo-viewer: \(event)\n".utf8)) }
      ))
    guard let table = cache.table(format: screen.name) else {
      throw ViewerError.noFamily(name: options.family, families: manifest.families)
    }
    let entities = table.entries()
      .map { Entity(id: $0.entityID, sourceVersion: $0.sourceVersion, source: .file($0.entityID)) }
      .sorted { $0.id < $1.id }
    guard !entities.isEmpty else {
      throw ViewerError.emptyFamily(name: options.family, cache: options.cache)
    }
    let photos = entities.map {
      CachedPhoto(cache: cache, entity: $0, format: screen.name, caption: $0.id)
    }
    browser = PhotoBrowser(photos: photos)
    thumbnails = ViewerThumbnails(cache: cache, entities: entities, format: thumb.name)
    scrubber = PhotoScrubber(dataSource: thumbnails)
    scrubber.delegate = self
    scrubber.reloadData()
  }

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

  /// The window's title: the browser's counter and caption, `2 of 13 - forest-path.jpg`.
  var title: String {
    [browser.counterText, browser.caption].compactMap { $0 }.joined(separator: " - ")
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
    scrubber.setSelectedPhotoIndex(browser.currentIndex, animated: true)
    didChange()
  }

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

  /// A click or drag at `x` in the scrubber view: the photo under it through the
  /// scrubber's touch mapping, which tells the browser through the delegate.
  func touchScrubber(atX x: Double) {
    scrubber.touch(atContainerX: x - Double(scrubber.layout.containerFrame.x))
  }

  func photoScrubberDidChangeSelection(_ scrubber: PhotoScrubber) {
    guard let index = scrubber.selectedPhotoIndex else { return }
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
}

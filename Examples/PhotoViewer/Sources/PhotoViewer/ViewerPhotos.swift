import Foundation
import ImageCaching
import ImageTables
import PhotoModels

/// The photos a family's tables hold now, in entity order: the browser's photos (the
/// largest format's entries) and the scrubber's thumbnails (the smallest format's, hits
/// or nothing, never a load). ``read()`` looks at the tables again, so photos a render
/// commits meanwhile join the list.
///
/// The cache is opened read-only (``CacheConfiguration/readOnly``): no lock, nothing
/// written, so renders into it and other viewers run beside this one. Until its tables
/// exist (a render into a new cache has not made them yet) it is not open, there are no
/// photos, and each ``read()`` tries again.
@MainActor
final class ViewerPhotos: PhotoBrowserDataSource, PhotoScrubberDataSource {
  let configuration: CacheConfiguration
  let screenFormat: String
  let thumbnailFormat: String
  private(set) var cache: ImageCache?
  private(set) var entities: [Entity] = []
  private var photos: [CachedPhoto] = []
  /// The photos whose thumbnails were there at the last read: a change redraws the strip.
  private(set) var thumbnailKeys: Set<String> = []

  /// `configuration` must be read-only.
  init(configuration: CacheConfiguration, screenFormat: String, thumbnailFormat: String) {
    precondition(configuration.readOnly, "the viewer opens its cache read-only")
    self.configuration = configuration
    self.screenFormat = screenFormat
    self.thumbnailFormat = thumbnailFormat
  }

  /// Opens the cache if it is not open yet; throws what the open said.
  func open() throws(CacheError) {
    guard cache == nil else { return }
    cache = try ImageCache(configuration: configuration)
  }

  /// Reads the tables' entries again (no lock: the seqlock reads of a read-only table).
  /// Returns what changed: the photos (some landed, or were evicted), or only
  /// thumbnails.
  func read() -> (photos: Bool, thumbnails: Bool) {
    guard let cache = cache ?? (tablesExist ? try? ImageCache(configuration: configuration) : nil)
    else { return (false, false) }
    self.cache = cache
    let found = (cache.table(format: screenFormat)?.entries() ?? [])
      .map { Entity(id: $0.entityID, sourceVersion: $0.sourceVersion, source: .file($0.entityID)) }
      .sorted { $0.id < $1.id }
    // The thumbnails of these photos only, looked up one by one (a hash and a probe
    // each): the thumbnails' table may keep ten times as many entries, and reading all
    // of its records made a read of 100 photos and 1,000 thumbnails take 23 ms (median,
    // debug build) where these lookups take 0.6 ms.
    let thumbnails = Set(
      found.filter { cache.contains($0, format: thumbnailFormat) }.map(Self.key))
    let photosChanged = found != entities
    let thumbnailsChanged = thumbnails != thumbnailKeys
    if photosChanged {
      // A photo the list had keeps its object: the browser knows its current photo by it.
      var kept: [String: CachedPhoto] = [:]
      for photo in photos { kept[Self.key(photo.entity)] = photo }
      photos = found.map {
        kept[Self.key($0)]
          ?? CachedPhoto(
            cache: cache, entity: $0, format: screenFormat, caption: $0.id,
            placeholderFormat: thumbnailFormat)
      }
      entities = found
    }
    thumbnailKeys = thumbnails
    return (photosChanged, thumbnailsChanged)
  }

  /// Whether every table of the configuration's formats is there (a render makes them
  /// before its first photo): before that an open can only fail.
  private var tablesExist: Bool {
    configuration.formats.allSatisfy {
      FileManager.default.fileExists(
        atPath: ImageTable.paths(formatName: $0.name, directory: configuration.directory).table)
    }
  }

  private static func key(_ entity: Entity) -> String {
    entity.id + "\u{0}" + entity.sourceVersion
  }

  func numberOfPhotos(in browser: PhotoBrowser) -> Int { photos.count }
  func photo(at index: Int, in browser: PhotoBrowser) -> any Photo { photos[index] }

  func numberOfPhotos(in scrubber: PhotoScrubber) -> Int { entities.count }

  func thumbnail(at index: Int, in scrubber: PhotoScrubber) -> Bitmap? {
    entities.indices.contains(index)
      ? cache?.cachedImage(for: entities[index], format: thumbnailFormat) : nil
  }
}

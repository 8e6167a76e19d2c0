import Foundation
import ImageCaching
import ImageTables

/// A photo whose image is an entry of an ``ImageCache``: a hit costs no decode; a
/// load fills the entry's family if it is missing.
///
/// A photo from the web (IDMPhotoBrowser's `photoWithURL:`) is one too:
/// ``init(cache:url:format:version:caption:placeholder:placeholderFormat:)``. Its load
/// goes through the cache (an entry already there needs no network; the download is the
/// cache's ``CacheConfiguration/loader``), its ``loadProgress``, ``PhotoEvent/progress(_:)``
/// events and ``Foundation/Notification/Name/photoProgress`` notifications follow the
/// bytes received (when the server announced a length), it ends once with the image or
/// the cache's error, and an unload before it ends cancels its request: when no other
/// request waits for the same fill, the download stops.
///
/// Its placeholder can be another format's entry, for example the family's small
/// thumbnail: ``placeholderImage`` is that entry whenever it is in the cache at the time
/// it is asked for (a hit: no I/O, no decode), so a placeholder whose entry lands later
/// (another family's fill, a prefetch, the scrubber's thumbnails) shows from then on,
/// and one whose photo's large entry was evicted while the small one stayed shows at
/// once. A fixed `placeholder` bitmap, if given, is shown while that entry is missing.
///
/// ```swift
/// import ImageCaching
/// import ImageTables
/// import PhotoModels
///
/// @MainActor func page(_ cache: ImageCache, _ entities: [Entity]) {
///   let photos = entities.map {
///     CachedPhoto(
///       cache: cache, entity: $0, format: "photo.screen", caption: $0.id,
///       placeholderFormat: "photo.thumb")
///   }
///   let browser = PhotoBrowser(photos: photos)
///   browser.show()
///   // The screen entry if it is there, else the thumbnail's if it is, else nil.
///   _ = browser.displayImage(at: 0)
/// }
/// ```
public final class CachedPhoto: Photo {
  public let cache: ImageCache
  public let entity: Entity
  public let format: String
  public let caption: String?
  /// The format whose entry is the placeholder when it is in the cache, if one was given.
  /// A name the cache does not keep (not one of its formats, or not kept for its device)
  /// gives no placeholder from the cache.
  public let placeholderFormat: String?
  /// The placeholder shown when there is no `placeholderFormat` entry, if one was given.
  public let fixedPlaceholder: Bitmap?
  let loading = PhotoLoading()

  /// The source version a URL photo's entity has unless one is given: `"1"`, for a URL
  /// that names one picture for good (as most photo URLs of a CDN or an API do).
  public static let defaultURLVersion = "1"

  /// - Parameters:
  ///   - placeholder: shown while the image loads, when `placeholderFormat` has no entry.
  ///   - placeholderFormat: a format (usually of the same family, smaller) whose entry for
  ///     `entity`, read from the cache each time it is asked for, is the placeholder.
  public init(
    cache: ImageCache, entity: Entity, format: String, caption: String? = nil,
    placeholder: Bitmap? = nil, placeholderFormat: String? = nil
  ) {
    self.cache = cache
    self.entity = entity
    self.format = format
    self.caption = caption
    self.fixedPlaceholder = placeholder
    self.placeholderFormat = placeholderFormat
  }

  /// A photo of the picture at `url` (`http`, `https`, `file`, or whatever the cache's
  /// loader fetches): its entity's id is the URL's `absoluteString` and its source is
  /// the URL.
  ///
  /// `version` is the entity's source version: the entry is a hit only while it was
  /// filled for that version. Left nil (the default), it is the version of the entry
  /// `format`'s table holds for the URL when the photo is made, whoever wrote it (an
  /// `imgtool render` of the URL stores the server's `etag:...`, see
  /// ``ImageCaching/RenderedEntity``), so that entry is a hit with no request; with no
  /// entry there, ``defaultURLVersion``, which says the picture behind the URL does not
  /// change. When it can, pass what changes with it (the `updatedAt` or the hash your API
  /// gives), or delete the entry (`cache.delete(url.absoluteString)`) to fetch it again.
  ///
  /// <!-- snippet context: import ImageCaching -->
  /// <!-- snippet context: import ImageTables -->
  /// <!-- snippet context: let screen = try ImageFormat(name: "photo.screen", family: "photo", width: 64, height: 48) -->
  /// <!-- snippet context: let cache = try ImageCache(configuration: .init(directory: URL(fileURLWithPath: "c"), formats: [screen])) -->
  /// ```swift
  /// let photo = CachedPhoto(
  ///   cache: cache, url: URL(string: "https://example.com/rome.jpg")!, format: "photo.screen")
  /// let events = photo.events()
  /// photo.loadUnderlyingImage()  // a hit ends at once, with no request
  /// for await event in events {
  ///   if case .progress(let fraction) = event { print("\(Int(fraction * 100))%") }
  ///   if case .loadingDidEnd = event { break }
  /// }
  /// ```
  public convenience init(
    cache: ImageCache, url: URL, format: String, version: String? = nil,
    caption: String? = nil, placeholder: Bitmap? = nil, placeholderFormat: String? = nil
  ) {
    let id = url.absoluteString
    let version =
      version ?? cache.sourceVersion(of: id, format: format) ?? Self.defaultURLVersion
    self.init(
      cache: cache,
      entity: Entity(id: id, sourceVersion: version, source: .url(url)),
      format: format, caption: caption, placeholder: placeholder,
      placeholderFormat: placeholderFormat)
  }

  /// The source's URL, for a photo whose entity's source is one.
  public var url: URL? {
    if case .url(let url) = entity.source { return url }
    return nil
  }

  /// The loaded image, else the cache's entry if it is there now (no I/O, no decode).
  public var underlyingImage: Bitmap? {
    loading.image ?? cache.cachedImage(for: entity, format: format)
  }

  /// The `placeholderFormat` entry if it is in the cache now (no I/O, no decode), else
  /// the fixed placeholder, else nil.
  public var placeholderImage: Bitmap? {
    placeholderFormat.flatMap { cache.cachedImage(for: entity, format: $0) } ?? fixedPlaceholder
  }

  public var loadProgress: Double { loading.progress }
  public var isLoading: Bool { loading.isLoading }

  /// Starts a load: the entry at once if it is in the cache, else a fill, whose source
  /// load's progress (as a fraction, when the length is known) is this photo's.
  public func loadUnderlyingImage() {
    let (cache, entity, format) = (cache, entity, format)
    loading.load(owner: self) { (reporter: PhotoLoading.ProgressReporter) in
      try await cache.image(for: entity, format: format) { progress in
        if let fraction = progress.fraction { reporter.report(fraction) }
      }
    }
  }

  public func unloadUnderlyingImage() { loading.unload(owner: self) }
  public func events() -> AsyncStream<PhotoEvent> { loading.events() }
}

import Foundation
import ImageCaching
import ImageTables

/// A photo whose image is an entry of an ``ImageCache``: a hit costs no decode; a
/// load fills the entry's family if it is missing.
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

  public func loadUnderlyingImage() {
    let (cache, entity, format) = (cache, entity, format)
    loading.load(owner: self) { try await cache.image(for: entity, format: format) }
  }

  public func unloadUnderlyingImage() { loading.unload(owner: self) }
  public func events() -> AsyncStream<PhotoEvent> { loading.events() }
}

import Foundation
import ImageCaching
import ImageTables

/// A photo whose image is an entry of an ``ImageCache``: a hit costs no decode; a
/// load fills the entry's family if it is missing.
public final class CachedPhoto: Photo {
  public let cache: ImageCache
  public let entity: Entity
  public let format: String
  public let caption: String?
  public let placeholderImage: Bitmap?
  let loading = PhotoLoading()

  public init(
    cache: ImageCache, entity: Entity, format: String, caption: String? = nil,
    placeholder: Bitmap? = nil
  ) {
    self.cache = cache
    self.entity = entity
    self.format = format
    self.caption = caption
    self.placeholderImage = placeholder
  }

  /// The loaded image, else the cache's entry if it is there now (no I/O, no decode).
  public var underlyingImage: Bitmap? {
    loading.image ?? cache.cachedImage(for: entity, format: format)
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

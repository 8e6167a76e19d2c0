import ImageCaching
import ImageTables
import PhotoModels

/// The scrubber's thumbnails, straight from the family's smallest format: hits or
/// nothing, never a load (the render made them).
@MainActor
final class ViewerThumbnails: PhotoScrubberDataSource {
  let cache: ImageCache
  let entities: [Entity]
  let format: String

  init(cache: ImageCache, entities: [Entity], format: String) {
    self.cache = cache
    self.entities = entities
    self.format = format
  }

  func numberOfPhotos(in scrubber: PhotoScrubber) -> Int { entities.count }

  func thumbnail(at index: Int, in scrubber: PhotoScrubber) -> Bitmap? {
    entities.indices.contains(index) ? cache.cachedImage(for: entities[index], format: format) : nil
  }
}

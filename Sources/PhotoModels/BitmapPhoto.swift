import Foundation
import ImageTables

/// A photo already in memory: always loaded; loading only says so.
public final class BitmapPhoto: Photo {
  public let caption: String?
  private let loading: PhotoLoading

  public init(_ bitmap: Bitmap, caption: String? = nil) {
    self.caption = caption
    loading = PhotoLoading(image: bitmap)
  }

  public var underlyingImage: Bitmap? { loading.image }
  public var loadProgress: Double { 1 }
  public var isLoading: Bool { false }
  public func loadUnderlyingImage() { loading.load(owner: self) { throw PhotoError.unloaded } }
  /// An in-memory photo keeps its image: there is nothing to load it back from.
  public func unloadUnderlyingImage() {}
  public func events() -> AsyncStream<PhotoEvent> { loading.events() }
}

/// Why a photo could not be loaded.
public enum PhotoError: Error, Sendable, Equatable, CustomStringConvertible {
  case unloaded
  case video(URL)

  public var description: String {
    switch self {
    case .unloaded: "unloaded: the image was let go before its load ended"
    case .video(let url): "\(url.absoluteString) is a video: it has no image to load"
    }
  }
}

import ImageProcessing
import ImageTables
import Vips
import WebLoading

/// Why the cache could not do what was asked: always naming the entity, format or file.
public enum CacheError: Error, Sendable, Equatable, CustomStringConvertible {
  case unknownFormat(String)
  case unknownFamily(String)
  case duplicateFormat(String)
  /// The format is not kept for the cache's device class.
  case formatNotKept(format: String, device: String)
  case invalidPipeline(format: String, error: PipelineError)
  case table(format: String, error: ImageTableError)
  /// The source could not be read or decoded; nothing was written for the entity.
  case source(entityID: String, source: String, error: VipsError)
  /// The URL loader failed.
  case loader(entityID: String, url: String, message: String)
  case noLoader(url: String)
  /// An `http`/`https` source could not be downloaded as an image (``HTTPSourceLoader``):
  /// the error names the URL, and ``HTTPSourceError/statusCode`` the HTTP status if
  /// that is what failed; nothing was written for the entity.
  case http(entityID: String, error: HTTPSourceError)
  /// A processor or the rasterizer failed; nothing was written for the entity.
  case processing(entityID: String, format: String, error: ProcessingError)
  /// A format's table refused the fill's write; what the fill had written for the
  /// family's other formats (`removed`) was taken out again, so nothing of it is kept.
  case fillUndone(entityID: String, family: String, removed: [String], error: ImageTableError)
  /// The fill was cancelled before anything was written.
  case cancelled(entityID: String)
  /// The cache was closed (``ImageCache/close()``): it fills nothing more.
  case closed(directory: String)

  public var description: String {
    switch self {
    case .unknownFormat(let name): "no format named '\(name)'"
    case .unknownFamily(let name): "no family named '\(name)'"
    case .duplicateFormat(let name):
      "two formats are named '\(name)': rename one (names are unique whichever devices each is for)"
    case .formatNotKept(let format, let device):
      "format '\(format)' is not kept for the device class '\(device)'"
    case .invalidPipeline(let format, let error): "format '\(format)': pipeline: \(error)"
    case .table(let format, let error):
      // Table errors that name their format already are not prefixed twice.
      "\(error)".hasPrefix("format '\(format)'") ? "\(error)" : "format '\(format)': \(error)"
    case .fillUndone(let entityID, let family, let removed, let error):
      "\(entityID): nothing stored for family '\(family)'"
        + (removed.isEmpty ? "" : " (undid \(removed.joined(separator: ", ")))") + ": \(error)"
    case .source(let entityID, let source, let error):
      entityID == source || error.source == source
        ? "\(error)" : "\(entityID) (\(source)): \(error.reason)"
    case .loader(let entityID, let url, let message):
      "\(entityID): loading \(url) failed: \(message)"
    case .http(let entityID, let error):
      entityID == error.url ? "\(error)" : "\(entityID): \(error)"
    case .noLoader(let url): "\(url): no loader for this URL; give the cache a SourceLoader"
    case .processing(let entityID, let format, let error):
      "\(entityID): format '\(format)': \(error)"
    case .cancelled(let entityID): "\(entityID): cancelled"
    case .closed(let directory):
      "the cache in \(directory) was closed: it fills nothing more; open a new ImageCache"
    }
  }
}

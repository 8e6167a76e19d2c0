import Foundation
import Vips

extension CacheError {
  /// What the cache reports when its ``SourceLoader`` threw `error` loading `url` for
  /// `entityID`: a download's failure as ``http(entityID:error:)``, a header over the
  /// limits as the ``source(entityID:source:error:)`` a file's would be, a
  /// ``CacheError`` as it is, anything else as ``loader(entityID:url:message:)``.
  init(loading error: any Error, entityID: String, url: URL) {
    switch error {
    case let error as CacheError: self = error
    case HTTPSourceError.image(let url, let error):
      self = .source(entityID: entityID, source: url, error: error)
    case let error as HTTPSourceError: self = .http(entityID: entityID, error: error)
    default:
      self = .loader(entityID: entityID, url: url.absoluteString, message: "\(error)")
    }
  }
}

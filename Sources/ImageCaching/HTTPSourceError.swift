import Vips
import WebLoading

/// Why ``HTTPSourceLoader`` gave no image bytes for a URL: the transfer failed, the
/// server sent something that is not an image, or the image's header is over the
/// cache's limits. Every case names the URL.
///
/// ```swift
/// import ImageCaching
/// import WebLoading
///
/// let error = HTTPSourceError.http(.status(url: "http://h/a.jpg", code: 404, attempts: 1))
/// print(error)  // http://h/a.jpg: the server answered 404 Not Found
/// print(error.statusCode ?? 0)  // 404
/// ```
public enum HTTPSourceError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The request failed: a status other than 2xx or 304, a timeout, a refused
  /// connection, a redirect loop, a body over the size limit or cut short...
  case http(HTTPError)
  /// The body is not an image any trusted loader reads, whatever its `Content-Type`
  /// said; `isHTML` when it is a web page (an error or login page sent with status 200).
  /// `contentType` is nil when the download was stopped before the response ended.
  case notAnImage(url: String, contentType: String?, isHTML: Bool)
  /// The image's header arrived and is refused (over ``ImageLimits``, or only a loader
  /// blocked for untrusted input reads it); the rest of the body was not downloaded.
  case image(url: String, error: VipsError)

  /// The URL asked for.
  public var url: String {
    switch self {
    case .http(let error): error.url
    case .notAnImage(let url, _, _), .image(let url, _): url
    }
  }

  /// The HTTP status of a refused request (404, 500...), if that is what failed.
  public var statusCode: Int? {
    if case .http(let error) = self { return error.statusCode }
    return nil
  }

  public var description: String {
    switch self {
    case .http(let error):
      return "\(error)"
    case .notAnImage(let url, let contentType, let isHTML):
      let type = contentType.map { " (Content-Type \($0))" } ?? ""
      if isHTML {
        return "\(url): the server sent an HTML page\(type), not an image; the URL may be "
          + "wrong, or the page an error or login page sent with status 200"
      }
      return "\(url): the server sent something that is not an image\(type): no trusted "
        + "loader recognises its bytes; check the URL"
    case .image(_, let error):
      return "\(error)"
    }
  }
}

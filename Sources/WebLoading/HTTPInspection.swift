/// What an `inspect` closure of ``HTTPClient/get(_:validators:progress:inspect:)`` answers
/// about the first bytes of a body.
///
/// A cache uses it to refuse what is not an image, or an image over its pixel limits, as
/// soon as the header has arrived instead of after the whole download.
///
/// ```swift
/// import WebLoading
///
/// let isPNG: @Sendable ([UInt8]) -> HTTPInspection = { bytes in
///   if bytes.count < 8 { return .needMore }
///   return bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) ? .accept : .reject("not a PNG")
/// }
/// print(isPNG([0x89]))  // needMore
/// ```
public enum HTTPInspection: Sendable, Equatable {
  /// Call again with more bytes (after the next chunk).
  case needMore
  /// Go on with the download; the closure is not called again.
  case accept
  /// Stop the download: the request fails with ``HTTPError/rejected(url:reason:)``.
  case reject(String)
}

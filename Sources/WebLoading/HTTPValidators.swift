import Foundation

/// What identifies one version of a resource on the web: its `ETag`, its
/// `Last-Modified` date and its length, as a response gave them.
///
/// A cache keeps ``sourceVersion`` as the version of a URL's entry, and sends the
/// validators back with the next request (`If-None-Match`, `If-Modified-Since`) so that
/// an unchanged resource answers `304 Not Modified` without a body.
///
/// ```swift
/// import WebLoading
///
/// let validators = HTTPValidators(etag: "\"5f3a-1c2b\"", lastModified: nil, length: 7211)
/// print(validators.sourceVersion ?? "none")  // etag:"5f3a-1c2b"
/// let again = HTTPValidators(sourceVersion: "etag:\"5f3a-1c2b\"")
/// print(again?.etag ?? "none")  // "5f3a-1c2b"
/// ```
public struct HTTPValidators: Sendable, Hashable {
  /// The `ETag` as sent, quotes included; a weak one starts with `W/`.
  public var etag: String?
  /// The `Last-Modified` header as sent.
  public var lastModified: String?
  /// The length of the body in bytes.
  public var length: Int64?

  /// Validators from their parts.
  public init(etag: String?, lastModified: String?, length: Int64?) {
    self.etag = etag
    self.lastModified = lastModified
    self.length = length
  }

  /// Whether ``etag`` is a strong one (not `W/`): equal tags then mean equal bytes.
  public var hasStrongETag: Bool {
    guard let etag else { return false }
    return !etag.hasPrefix("W/")
  }

  /// `etag:<etag>` for a strong ETag, else `modified:<Last-Modified>;length:<n>` when both
  /// are known, else nil (nothing tells one version from another).
  public var sourceVersion: String? {
    if hasStrongETag, let etag { return Self.etagPrefix + etag }
    if let lastModified, let length {
      return Self.modifiedPrefix + lastModified + Self.lengthSeparator + String(length)
    }
    return nil
  }

  /// The validators a ``sourceVersion`` stands for; nil for a string it did not make.
  public init?(sourceVersion: String) {
    if sourceVersion.hasPrefix(Self.etagPrefix) {
      let etag = String(sourceVersion.dropFirst(Self.etagPrefix.count))
      guard !etag.isEmpty, !etag.hasPrefix("W/") else { return nil }
      self.init(etag: etag, lastModified: nil, length: nil)
      return
    }
    guard sourceVersion.hasPrefix(Self.modifiedPrefix),
      let separator = sourceVersion.range(of: Self.lengthSeparator, options: .backwards)
    else { return nil }
    let lastModified = String(
      sourceVersion[
        sourceVersion.index(
          sourceVersion.startIndex, offsetBy: Self.modifiedPrefix.count)..<separator.lowerBound])
    guard !lastModified.isEmpty, let length = Int64(sourceVersion[separator.upperBound...]),
      length >= 0
    else { return nil }
    self.init(etag: nil, lastModified: lastModified, length: length)
  }

  /// The request headers that ask for the body only if it changed.
  var conditionalHeaders: [(name: String, value: String)] {
    var headers: [(name: String, value: String)] = []
    if let etag { headers.append(("If-None-Match", etag)) }
    if let lastModified { headers.append(("If-Modified-Since", lastModified)) }
    return headers
  }

  private static let etagPrefix = "etag:"
  private static let modifiedPrefix = "modified:"
  private static let lengthSeparator = ";length:"
}

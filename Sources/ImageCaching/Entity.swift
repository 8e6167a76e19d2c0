import Foundation

/// Something with a picture (FastImageCache's `FICEntity`): a stable id, a version
/// that changes when the picture changes, and where the picture comes from.
///
/// ```swift
/// let ada = Entity(id: "people/ada", sourceVersion: "2026-11-02", source: .file("ada.jpg"))
/// ```
public struct Entity: Sendable, Hashable {
  /// Any string that names the entity for good (not only UUIDs).
  public var id: String
  /// Changes whenever the source picture changes: an entry of another version is a miss.
  public var sourceVersion: String
  public var source: Source

  /// Where an entity's picture comes from.
  public enum Source: Sendable, Hashable, CustomStringConvertible {
    /// A file on disk.
    case file(String)
    /// Bytes in memory; `name` is how errors call them (a path, a URL).
    case bytes([UInt8], name: String)
    /// A URL, fetched by the cache's ``SourceLoader``.
    case url(URL)

    public var description: String {
      switch self {
      case .file(let path): path
      case .bytes(_, let name): name
      case .url(let url): url.absoluteString
      }
    }
  }

  public init(id: String, sourceVersion: String, source: Source) {
    self.id = id
    self.sourceVersion = sourceVersion
    self.source = source
  }
}

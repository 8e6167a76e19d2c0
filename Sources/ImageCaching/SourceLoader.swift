import Foundation

/// Fetches the bytes of a URL source: plug in your HTTP client, object store or
/// database. The cache calls it once per fill, however many requests wait.
public protocol SourceLoader: Sendable {
  func load(_ url: URL) async throws -> [UInt8]
}

/// Reads `file:` URLs; refuses others (this machine has no network of its own to use).
public struct FileURLLoader: SourceLoader {
  public init() {}

  public func load(_ url: URL) async throws -> [UInt8] {
    guard url.isFileURL else {
      throw CacheError.noLoader(url: url.absoluteString)
    }
    return try [UInt8](Data(contentsOf: url))
  }
}

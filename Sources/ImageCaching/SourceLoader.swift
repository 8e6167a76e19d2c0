import Foundation

/// Fetches the bytes of a URL source: plug in your HTTP client, object store or
/// database. The cache calls it once per fill, however many requests wait.
///
/// A loader that can tell how far it got implements
/// ``load(_:progress:)``; the cache passes what it reports to every request waiting for
/// the fill. Cancelling the task that calls it (the cache does when the last request
/// waiting for a fill goes) must stop the transfer.
///
/// ```swift
/// struct Bucket: SourceLoader {
///   func load(_ url: URL) async throws -> [UInt8] { [] }  // fetch from your store
/// }
/// ```
public protocol SourceLoader: Sendable {
  func load(_ url: URL) async throws -> [UInt8]
  /// The same, telling `progress` as bytes arrive (from any thread, in order). The
  /// default calls ``load(_:)`` and reports nothing.
  func load(_ url: URL, progress: @escaping @Sendable (LoadProgress) -> Void) async throws
    -> [UInt8]
}

extension SourceLoader {
  public func load(_ url: URL, progress: @escaping @Sendable (LoadProgress) -> Void)
    async throws -> [UInt8]
  {
    try await load(url)
  }
}

/// How far a source's load has come: bytes received, of how many if known.
public struct LoadProgress: Sendable, Equatable {
  public var bytesReceived: Int64
  /// The length the server announced (`Content-Length`), if it did.
  public var bytesExpected: Int64?

  public init(bytesReceived: Int64, bytesExpected: Int64?) {
    self.bytesReceived = bytesReceived
    self.bytesExpected = bytesExpected
  }

  /// 0 to 1 when the length is known, else nil.
  public var fraction: Double? {
    guard let bytesExpected, bytesExpected > 0 else { return nil }
    return min(1, Double(bytesReceived) / Double(bytesExpected))
  }
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

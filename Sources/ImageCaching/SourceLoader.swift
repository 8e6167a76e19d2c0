import Foundation
import Vips
import WebLoading

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

/// How far a source's load has come: bytes received, of how many if known, and the
/// `fraction` of them. The HTTP client's own progress (one type, so the standard loader
/// passes on what the client reports unchanged); any loader makes one with
/// `LoadProgress(bytesReceived:bytesExpected:)`.
public typealias LoadProgress = TransferProgress

/// Reads `file:` URLs; refuses others (this machine has no network of its own to use).
public struct FileURLLoader: SourceLoader {
  public init() {}

  public func load(_ url: URL) async throws -> [UInt8] {
    guard url.isFileURL else {
      throw CacheError.noLoader(url: url.absoluteString)
    }
    return try FileBytes.read(url.path)
  }
}

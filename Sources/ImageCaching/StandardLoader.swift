import Foundation
import Vips
import WebLoading

/// The cache's default ``SourceLoader``: `file:` URLs are read from disk, `http` and
/// `https` URLs downloaded by an ``HTTPSourceLoader``; any other scheme is
/// ``CacheError/noLoader(url:)``.
///
/// ```swift
/// import Foundation
/// import ImageCaching
/// import WebLoading
///
/// // Give up on a server that sends nothing for 5 s; at most 20 MiB a photo.
/// let loader = StandardLoader(
///   limits: HTTPLimits(idleTimeout: .seconds(5), maximumBytes: 20 << 20))
/// let configuration = CacheConfiguration(
///   directory: URL(fileURLWithPath: "cache"), formats: [], loader: loader)
/// ```
public struct StandardLoader: SourceLoader {
  /// What `http` and `https` URLs go through.
  public var http: HTTPSourceLoader

  public init(http: HTTPSourceLoader = HTTPSourceLoader()) {
    self.http = http
  }

  /// A loader whose downloads keep `limits` (a client of its own) and `imageLimits`.
  public init(limits: HTTPLimits, imageLimits: ImageLimits = .standard) {
    http = HTTPSourceLoader(limits: limits, imageLimits: imageLimits)
  }

  public func load(_ url: URL) async throws -> [UInt8] {
    try await load(url, progress: { _ in })
  }

  public func load(_ url: URL, progress: @escaping @Sendable (LoadProgress) -> Void)
    async throws -> [UInt8]
  {
    if url.isFileURL { return try await FileURLLoader().load(url) }
    guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme) else {
      throw CacheError.noLoader(url: url.absoluteString)
    }
    return try await http.load(url, progress: progress)
  }
}

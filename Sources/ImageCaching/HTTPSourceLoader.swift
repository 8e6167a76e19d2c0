import Foundation
import Locking
import Vips
import WebLoading

/// Loads `http` and `https` sources through a ``WebLoading/HTTPClient``, and knows an
/// image by its bytes, never by the `Content-Type` header alone: a PNG served as
/// `image/jpeg` loads, an HTML page sent with status 200 is named as one. The image's
/// header is checked against ``imageLimits`` as soon as it has arrived, so a
/// decompression bomb or a photo too large stops before the rest is downloaded.
///
/// ``fetch(_:validators:progress:)`` sends a conditional request, for a cache that keeps
/// a URL's version: the answer is ``Fetched/notModified`` (no body was sent) or the new
/// bytes with their ``RenderedEntity/sourceVersion(of:bytes:)``.
///
/// ```swift
/// import Foundation
/// import ImageCaching
/// import WebLoading
///
/// func refresh(_ url: URL, stored version: String) async throws(HTTPSourceError) {
///   let loader = HTTPSourceLoader(limits: HTTPLimits(idleTimeout: .seconds(5)))
///   let validators = HTTPValidators(sourceVersion: version)
///   switch try await loader.fetch(url, validators: validators) {
///   case .notModified: print("up to date")
///   case .fetched(let bytes, let sourceVersion): print(bytes.count, sourceVersion)
///   }
/// }
/// ```
public struct HTTPSourceLoader: SourceLoader {
  /// What a fetch gave.
  public enum Fetched: Sendable, Equatable {
    /// The server said the version asked about is current (`304`); no body came.
    case notModified
    /// The whole body (an image, by its first bytes) and the version the response gives.
    case fetched(bytes: [UInt8], sourceVersion: String)
  }

  /// The client the requests go through (its ``WebLoading/HTTPLimits``: timeouts,
  /// redirects, size, connections, retries).
  public var client: HTTPClient { ownClient ?? .shared }
  /// Nil for the shared client, made (with its thread) only when a download needs it.
  private let ownClient: HTTPClient?
  /// The pixel limits checked on the header as it arrives.
  public var imageLimits: ImageLimits

  /// A loader over `client`; nil (the default) is ``WebLoading/HTTPClient/shared``, with
  /// the standard limits.
  public init(client: HTTPClient? = nil, imageLimits: ImageLimits = .standard) {
    ownClient = client
    self.imageLimits = imageLimits
  }

  /// A loader with a client of its own, keeping `limits`.
  public init(limits: HTTPLimits, imageLimits: ImageLimits = .standard) {
    self.init(client: HTTPClient(limits: limits), imageLimits: imageLimits)
  }

  public func load(_ url: URL) async throws -> [UInt8] {
    try await load(url, progress: { _ in })
  }

  /// Downloads `url` (no validators), reporting bytes as they arrive; throws
  /// ``HTTPSourceError``.
  public func load(_ url: URL, progress: @escaping @Sendable (LoadProgress) -> Void)
    async throws -> [UInt8]
  {
    switch try await fetch(url, validators: nil, progress: progress) {
    case .fetched(let bytes, _): return bytes
    case .notModified:
      // Only a request with validators can be answered 304.
      throw HTTPSourceError.http(
        .transfer(url: url.absoluteString, message: "304 Not Modified to a plain request"))
    }
  }

  /// A GET of `url`, conditional when `validators` are given (`If-None-Match`,
  /// `If-Modified-Since`).
  public func fetch(
    _ url: URL, validators: HTTPValidators? = nil,
    progress: (@Sendable (LoadProgress) -> Void)? = nil
  ) async throws(HTTPSourceError) -> Fetched {
    let sniffer = ImageSniffer(name: url.absoluteString, limits: imageLimits)
    let response: HTTPResponse
    do throws(HTTPError) {
      response = try await client.get(
        url, validators: validators, progress: progress, inspect: { sniffer.inspect($0) })
    } catch {
      if case .rejected = error, let finding = sniffer.finding {
        throw finding.error(url: url.absoluteString, contentType: nil)
      }
      throw .http(error)
    }
    if response.isNotModified { return .notModified }
    if let finding = sniffer.finish(response.body) {
      throw finding.error(url: url.absoluteString, contentType: response.contentType)
    }
    return .fetched(
      bytes: response.body,
      sourceVersion: RenderedEntity.sourceVersion(of: response.validators, bytes: response.body))
  }
}

/// The `inspect` of one download: probes the bytes so far for an image header (each
/// time they have doubled, so a slow header costs a few probes), checks it against the
/// limits, and notes what it refused.
final class ImageSniffer: Sendable {
  enum Finding: Sendable {
    case notAnImage(isHTML: Bool)
    case refused(VipsError)

    func error(url: String, contentType: String?) -> HTTPSourceError {
      switch self {
      case .notAnImage(let isHTML):
        .notAnImage(url: url, contentType: contentType, isHTML: isHTML)
      case .refused(let error): .image(url: url, error: error)
      }
    }
  }

  /// A non-image is downloaded up to this many bytes, so that one that ends sooner (an
  /// error page) is named with its `Content-Type`; a longer one is stopped here.
  static let nonImageBytes = 64 << 10
  /// Past this many bytes with no header parsed, the decode of the whole body decides.
  static let headerBytes = 1 << 20

  private let name: String
  private let limits: ImageLimits
  private let state = Lock<(probedAt: Int, accepted: Bool, finding: Finding?)>((0, false, nil))

  init(name: String, limits: ImageLimits) {
    self.name = name
    self.limits = limits
  }

  var finding: Finding? { state.withLock { $0.finding } }

  func inspect(_ bytes: [UInt8]) -> HTTPInspection {
    let (probedAt, finding) = state.withLock { ($0.probedAt, $0.finding) }
    if case .notAnImage = finding {
      return bytes.count >= Self.nonImageBytes ? .reject("not an image") : .needMore
    }
    guard probedAt == 0 || bytes.count >= probedAt * 2 || bytes.count < HeaderProbe.signatureBytes
    else { return .needMore }
    state.withLock { $0.probedAt = bytes.count }
    do {
      switch try HeaderProbe.probe(bytes, name: name) {
      case .needMore:
        return bytes.count >= Self.headerBytes ? .accept : .needMore
      case .header(let header):
        try limits.check(header, source: name)
        state.withLock { $0.accepted = true }
        return .accept
      }
    } catch .notAnImage {
      state.withLock { $0.finding = .notAnImage(isHTML: Self.looksLikeHTML(bytes)) }
      return bytes.count >= Self.nonImageBytes ? .reject("not an image") : .needMore
    } catch {
      state.withLock { $0.finding = .refused(error) }
      return .reject(error.reason)
    }
  }

  /// What the whole body shows when the download ended before ``inspect(_:)`` decided
  /// (a body shorter than a signature, or one whose header is at its very end).
  func finish(_ body: [UInt8]) -> Finding? {
    let (accepted, finding) = state.withLock { ($0.accepted, $0.finding) }
    if accepted || finding != nil { return finding }
    do {
      _ = try VipsImage(bytes: body, name: name, limits: limits)
      return nil
    } catch .notAnImage {
      return .notAnImage(isHTML: Self.looksLikeHTML(body))
    } catch {
      switch error {
      case .blockedLoader, .tooManyPixels, .dimensionTooLarge: return .refused(error)
      default: return nil  // empty, or a header that does not parse: the decode names it
      }
    }
  }

  /// Whether bytes begin as a web page does (after any byte-order mark and white space).
  static func looksLikeHTML(_ bytes: [UInt8]) -> Bool {
    var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
    let head = String(decoding: bytes[start..<min(bytes.count, start + 64)], as: UTF8.self)
      .lowercased()
    return ["<!doctype html", "<html", "<head", "<body", "<!--", "<title", "<h1", "<p>", "<div"]
      .contains { head.hasPrefix($0) }
  }
}

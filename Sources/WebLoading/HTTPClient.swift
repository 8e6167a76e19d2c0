import Foundation

/// An HTTP(S) client for downloading photos: GETs over libcurl, with keep-alive
/// connections, per-host and total concurrency limits, timeouts (connect, idle, whole),
/// a redirect limit, a size limit enforced while streaming, retries with backoff, and
/// cancellation that stops the transfer.
///
/// All the requests of one client run on one thread of its own (a libcurl multi handle):
/// at most ``HTTPLimits/connectionsPerHost`` to one host and
/// ``HTTPLimits/totalConnections`` in all, the rest queued in order, each connection kept
/// open and reused by the next request to its host.
///
/// ```swift
/// import WebLoading
///
/// func download(_ url: URL) async {
///   do {
///     let response = try await HTTPClient.shared.get(url) { progress in
///       print(progress.bytesReceived, "of", progress.bytesExpected ?? -1)
///     }
///     print(response.body.count, "bytes,", response.validators.sourceVersion ?? "no version")
///   } catch {
///     print(error)  // e.g. http://h/a.jpg: the server answered 404 Not Found
///   }
/// }
/// ```
public final class HTTPClient: Sendable {
  /// A client with the ``HTTPLimits/standard`` limits, for the whole process.
  public static let shared = HTTPClient()

  /// The limits every request of this client keeps.
  public let limits: HTTPLimits

  private let engine: TransferEngine

  /// A client with its own connections and limits (and its own thread).
  public init(limits: HTTPLimits = .standard) {
    precondition(
      limits.connectionsPerHost > 0 && limits.totalConnections > 0,
      "HTTPLimits: connectionsPerHost and totalConnections must be at least 1")
    precondition(
      limits.maximumRedirects >= 0 && limits.retries >= 0 && limits.maximumBytes >= 0,
      "HTTPLimits: maximumRedirects, retries and maximumBytes cannot be negative")
    self.limits = limits
    engine = TransferEngine(limits: limits)
  }

  /// How many connections this client has opened so far (libcurl's
  /// `CURLINFO_NUM_CONNECTS` of every attempt, summed). With keep-alive it stays far
  /// below the number of requests to one host.
  public var connectionsOpened: Int { engine.connectionsOpened }

  /// How many attempts (first tries, retries and redirect hops) this client has started.
  public var attemptsStarted: Int { engine.attemptsStarted }

  /// The most requests this client has run at once to one host so far; never more than
  /// ``HTTPLimits/connectionsPerHost``.
  public var mostConcurrentRequestsToOneHost: Int { engine.mostRunningToOneHost }

  /// A GET of `url`; a `2xx` or a `304` returns, every other outcome throws.
  ///
  /// - Parameters:
  ///   - validators: sent as `If-None-Match` (the ETag) and `If-Modified-Since`; an
  ///     unchanged resource then answers `304` with no body
  ///     (``HTTPResponse/isNotModified``).
  ///   - progress: called after every chunk of the body with the bytes so far, on the
  ///     client's thread: keep it short.
  ///   - inspect: called with the body so far after every chunk, on the client's thread,
  ///     until it answers ``HTTPInspection/accept`` or ``HTTPInspection/reject(_:)``; a
  ///     rejection stops the transfer (``HTTPError/rejected(url:reason:)``).
  ///
  /// Redirects are followed up to ``HTTPLimits/maximumRedirects``; connection failures,
  /// timeouts, bodies cut short and 5xx statuses are tried again up to
  /// ``HTTPLimits/retries`` times, after ``HTTPLimits/retryDelay`` doubled each time; a
  /// 4xx is final at once. Cancelling the calling task stops the transfer at once
  /// (``HTTPError/cancelled(url:)``).
  ///
  /// ```swift
  /// import WebLoading
  ///
  /// func refresh(_ url: URL, known: HTTPValidators) async throws(HTTPError) -> [UInt8]? {
  ///   let response = try await HTTPClient.shared.get(url, validators: known)
  ///   return response.isNotModified ? nil : response.body
  /// }
  /// ```
  public func get(
    _ url: URL, validators: HTTPValidators? = nil,
    progress: (@Sendable (TransferProgress) -> Void)? = nil,
    inspect: (@Sendable ([UInt8]) -> HTTPInspection)? = nil
  ) async throws(HTTPError) -> HTTPResponse {
    let asked = url.absoluteString
    _ = try Self.hostKey(of: url, asked: asked)
    let headers = (validators?.conditionalHeaders ?? []).map { "\($0.name): \($0.value)" }
    var chain = [asked]
    var current = url
    while true {
      let result = try await attempts(
        of: current, asked: asked, headers: headers, progress: progress, inspect: inspect)
      if let target = result.redirectTarget {
        if chain.contains(target) {
          throw .redirectLoop(url: asked, chain: chain + [target])
        }
        if chain.count > limits.maximumRedirects {
          throw .tooManyRedirects(url: asked, limit: limits.maximumRedirects)
        }
        guard let next = URL(string: target) else { throw .invalidURL(target) }
        chain.append(target)
        current = next
        continue
      }
      return response(to: url, from: result, sent: validators)
    }
  }

  /// One URL, tried until it answers or fails for good.
  private func attempts(
    of url: URL, asked: String, headers: [String],
    progress: (@Sendable (TransferProgress) -> Void)?,
    inspect: (@Sendable ([UInt8]) -> HTTPInspection)?
  ) async throws(HTTPError) -> TransferResult {
    let request = TransferRequest(
      url: url.absoluteString, hostKey: try Self.hostKey(of: url, asked: url.absoluteString),
      headers: headers, limits: limits, progress: progress, inspect: inspect)
    var attempt = 0
    var delay = limits.retryDelay
    while true {
      attempt += 1
      if Task.isCancelled { throw .cancelled(url: asked) }
      switch await engine.perform(request) {
      case .completed(let result):
        return result
      case .failed(let failure):
        let error = Self.error(failure, url: asked, attempts: attempt, limits: limits)
        guard error.isRetryable, attempt <= limits.retries else { throw error }
        do {
          try await Task.sleep(for: delay)
        } catch {
          throw .cancelled(url: asked)
        }
        delay *= 2
      }
    }
  }

  private func response(to url: URL, from result: TransferResult, sent: HTTPValidators?)
    -> HTTPResponse
  {
    let notModified = result.status == 304
    let validators = HTTPValidators(
      etag: result.headers["etag"] ?? (notModified ? sent?.etag : nil),
      lastModified: result.headers["last-modified"] ?? (notModified ? sent?.lastModified : nil),
      length: notModified ? sent?.length : Int64(result.body.count))
    return HTTPResponse(
      url: url, finalURL: URL(string: result.effectiveURL) ?? url, status: result.status,
      headers: result.headers, body: result.body, validators: validators)
  }

  /// `scheme://host:port`, what the per-host limit counts by; checks the URL.
  private static func hostKey(of url: URL, asked: String) throws(HTTPError) -> String {
    guard let scheme = url.scheme?.lowercased() else { throw .invalidURL(asked) }
    guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(url: asked) }
    guard let host = url.host, !host.isEmpty else { throw .invalidURL(asked) }
    let port = url.port ?? (scheme == "https" ? 443 : 80)
    return "\(scheme)://\(host.lowercased()):\(port)"
  }

  private static func error(
    _ failure: TransferFailure, url: String, attempts: Int, limits: HTTPLimits
  ) -> HTTPError {
    switch failure {
    case .connection(let message):
      return .connectionFailed(url: url, message: message, attempts: attempts)
    case .timeout(let phase):
      let limit =
        switch phase {
        case .connect: limits.connectTimeout
        case .idle: limits.idleTimeout
        case .request: limits.requestTimeout
        }
      return .timedOut(url: url, phase: phase, seconds: limit.seconds, attempts: attempts)
    case .status(let code):
      return .status(url: url, code: code, attempts: attempts)
    case .cutShort(let received, let expected):
      return .cutShort(url: url, received: received, expected: expected, attempts: attempts)
    case .tooLarge(let declared):
      return .tooLarge(url: url, limit: limits.maximumBytes, declared: declared)
    case .rejected(let reason):
      return .rejected(url: url, reason: reason)
    case .cancelled:
      return .cancelled(url: url)
    case .other(let message):
      return .transfer(url: url, message: message)
    }
  }
}

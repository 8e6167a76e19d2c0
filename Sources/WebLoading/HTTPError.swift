/// Why a request of ``HTTPClient`` did not give a response.
///
/// Every case names the URL asked for; the ``description`` says what happened and what to
/// do, as a person reading a log wants it.
///
/// ```swift
/// import WebLoading
///
/// let error = HTTPError.status(url: "http://h/a.jpg", code: 404, attempts: 1)
/// print(error)  // http://h/a.jpg: the server answered 404 Not Found
/// print(error.statusCode ?? 0)  // 404
/// ```
public enum HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The string is not an absolute URL with a host.
  case invalidURL(String)
  /// The URL is not `http` or `https`.
  case unsupportedScheme(url: String)
  /// The server answered a status other than 2xx, 304 or a redirect: a 4xx at once, a 5xx
  /// after every retry.
  case status(url: String, code: Int, attempts: Int)
  /// No connection could be made or kept: refused, unknown host, reset.
  case connectionFailed(url: String, message: String, attempts: Int)
  /// A timeout of ``HTTPLimits`` ran out (every attempt); `seconds` is its length.
  case timedOut(url: String, phase: TimeoutPhase, seconds: Double, attempts: Int)
  /// The server redirected more than `limit` times.
  case tooManyRedirects(url: String, limit: Int)
  /// A redirect led back to a URL of the same request; `chain` is the URLs in order,
  /// ending with the one visited twice.
  case redirectLoop(url: String, chain: [String])
  /// The body is larger than ``HTTPLimits/maximumBytes``: `declared` is the
  /// `Content-Length` when that said so (the body was never read), nil when the body was
  /// cut as it passed the limit.
  case tooLarge(url: String, limit: Int64, declared: Int64?)
  /// The connection closed before the `Content-Length` the server had announced
  /// (every attempt).
  case cutShort(url: String, received: Int64, expected: Int64, attempts: Int)
  /// The `inspect` closure refused the first bytes.
  case rejected(url: String, reason: String)
  /// The calling task was cancelled; the transfer stopped.
  case cancelled(url: String)
  /// Another failure of the transfer (TLS, protocol), with libcurl's message.
  case transfer(url: String, message: String)

  /// The URL the request asked for.
  public var url: String {
    switch self {
    case .invalidURL(let url): url
    case .unsupportedScheme(let url), .status(let url, _, _),
      .connectionFailed(let url, _, _), .timedOut(let url, _, _, _),
      .tooManyRedirects(let url, _), .redirectLoop(let url, _), .tooLarge(let url, _, _),
      .cutShort(let url, _, _, _), .rejected(let url, _), .cancelled(let url),
      .transfer(let url, _):
      url
    }
  }

  /// The HTTP status, for ``status(url:code:attempts:)``.
  public var statusCode: Int? {
    if case .status(_, let code, _) = self { return code }
    return nil
  }

  /// Whether another attempt may succeed: connection failures, timeouts, bodies cut
  /// short and 5xx statuses.
  var isRetryable: Bool {
    switch self {
    case .connectionFailed, .timedOut, .cutShort: true
    case .status(_, let code, _): (500...599).contains(code)
    default: false
    }
  }

  /// `"<url>: <what happened>; <what to do>"`.
  public var description: String {
    switch self {
    case .invalidURL(let url):
      return "\(url): not a valid URL; give an absolute http:// or https:// URL"
    case .unsupportedScheme(let url):
      return "\(url): only http:// and https:// URLs are downloaded"
    case .status(let url, let code, let attempts):
      let answer = "\(url): the server answered \(HTTPStatusText.line(code))"
      if (500...599).contains(code) {
        return answer + " \(Self.after(attempts)); the server failed, try again later"
      }
      return answer
    case .connectionFailed(let url, let message, let attempts):
      return "\(url): no connection (\(message)) \(Self.after(attempts)); "
        + "check that the server is up and the address is right"
    case .timedOut(let url, let phase, let seconds, let attempts):
      let limit = Self.seconds(seconds)
      let what =
        switch phase {
        case .connect:
          "the connection was not made within \(limit) (connect timeout)"
        case .idle:
          "no byte arrived for \(limit) (idle timeout)"
        case .request:
          "the request took longer than \(limit) (request timeout)"
        }
      return "\(url): \(what) \(Self.after(attempts)); the server is stalled or too slow, "
        + "raise HTTPLimits.\(phase.limitName) if it is only slow"
    case .tooManyRedirects(let url, let limit):
      return "\(url): more than \(limit) redirects; "
        + "raise HTTPLimits.maximumRedirects if the server really needs more"
    case .redirectLoop(let url, let chain):
      return "\(url): redirect loop \(chain.joined(separator: " -> ")); "
        + "the server redirects in a circle, fix its redirects"
    case .tooLarge(let url, let limit, let declared):
      if let declared {
        return "\(url): the body is \(declared) bytes (Content-Length), over the limit of "
          + "\(limit) bytes, and was not downloaded; raise HTTPLimits.maximumBytes to accept it"
      }
      return "\(url): the body passed the limit of \(limit) bytes and was cut off; "
        + "raise HTTPLimits.maximumBytes to accept it"
    case .cutShort(let url, let received, let expected, let attempts):
      return "\(url): the body ended after \(received) of its \(expected) bytes "
        + "\(Self.after(attempts)); the server closed the connection early"
    case .rejected(let url, let reason):
      return "\(url): \(reason)"
    case .cancelled(let url):
      return "\(url): the download was cancelled"
    case .transfer(let url, let message):
      return "\(url): \(message)"
    }
  }

  private static func after(_ attempts: Int) -> String {
    attempts == 1 ? "after 1 attempt" : "after \(attempts) attempts"
  }

  private static func seconds(_ value: Double) -> String {
    value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
  }
}

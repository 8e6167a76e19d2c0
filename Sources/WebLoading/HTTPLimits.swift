/// The limits an ``HTTPClient`` keeps on every request: timeouts, redirects, size,
/// concurrency and retries.
///
/// The defaults are what a user would expect of a browser or a download tool: a stalled
/// server stops a request after ``idleTimeout`` (20 s without a byte), one attempt never
/// takes longer than ``requestTimeout``, at most 6 requests run at once to one host.
///
/// ```swift
/// import WebLoading
///
/// var limits = HTTPLimits.standard
/// limits.idleTimeout = .seconds(5)
/// limits.maximumBytes = 20 << 20  // 20 MiB
/// let client = HTTPClient(limits: limits)
/// print(client.limits.connectionsPerHost)  // 6
/// ```
public struct HTTPLimits: Sendable, Equatable {
  /// How long a connection (TCP and TLS) may take to be made. Default 10 s.
  public var connectTimeout: Duration
  /// How long a request may go without receiving a byte once its connection is made
  /// (the server thinking, or a body that stalls). Default 20 s.
  public var idleTimeout: Duration
  /// How long one attempt may take as a whole, queueing excluded. Default 120 s.
  public var requestTimeout: Duration
  /// How many redirects a request follows; one more is ``HTTPError/tooManyRedirects(url:limit:)``.
  /// Default 5.
  public var maximumRedirects: Int
  /// The largest body accepted, in bytes: a `Content-Length` over it is refused before
  /// the body, and a body without one (or with a false one) is cut the moment it passes
  /// it. Default 100 MiB.
  public var maximumBytes: Int64
  /// How many requests run at once to one host (scheme, host and port); the rest wait in
  /// order. Default 6, as browsers.
  public var connectionsPerHost: Int
  /// How many requests run at once in all; the rest wait in order. Default 32.
  public var totalConnections: Int
  /// How many times a GET is tried again after a connection failure, a timeout, a body
  /// cut short or a 5xx status (never after a 4xx). Default 2.
  public var retries: Int
  /// The wait before the first retry, doubled before each next one. Default 0.25 s.
  public var retryDelay: Duration

  /// The defaults: 10 s to connect, 20 s idle, 120 s per attempt, 5 redirects, 100 MiB,
  /// 6 per host, 32 in all, 2 retries from 0.25 s.
  public static let standard = HTTPLimits()

  /// Limits with every field given or left at its default.
  public init(
    connectTimeout: Duration = .seconds(10),
    idleTimeout: Duration = .seconds(20),
    requestTimeout: Duration = .seconds(120),
    maximumRedirects: Int = 5,
    maximumBytes: Int64 = 100 << 20,
    connectionsPerHost: Int = 6,
    totalConnections: Int = 32,
    retries: Int = 2,
    retryDelay: Duration = .milliseconds(250)
  ) {
    self.connectTimeout = connectTimeout
    self.idleTimeout = idleTimeout
    self.requestTimeout = requestTimeout
    self.maximumRedirects = maximumRedirects
    self.maximumBytes = maximumBytes
    self.connectionsPerHost = connectionsPerHost
    self.totalConnections = totalConnections
    self.retries = retries
    self.retryDelay = retryDelay
  }
}

extension Duration {
  /// Whole milliseconds, rounded up, at least 1 (libcurl reads 0 as "no limit").
  var curlMilliseconds: Int {
    let (seconds, attoseconds) = components
    let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    return Int(max(1, milliseconds))
  }

  /// The duration in seconds, for messages.
  var seconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}

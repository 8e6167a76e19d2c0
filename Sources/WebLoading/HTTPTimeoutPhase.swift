extension HTTPError {
  /// Which timeout of ``HTTPLimits`` ran out.
  ///
  /// ```swift
  /// import WebLoading
  ///
  /// let error = HTTPError.timedOut(
  ///   url: "http://h/a.jpg", phase: .idle, seconds: 20, attempts: 3)
  /// print(error)  // http://h/a.jpg: no byte arrived for 20 s (idle timeout) after 3 attempts; ...
  /// ```
  public enum TimeoutPhase: String, Sendable, Equatable {
    /// ``HTTPLimits/connectTimeout``: the connection was not made in time.
    case connect
    /// ``HTTPLimits/idleTimeout``: no byte arrived for that long.
    case idle
    /// ``HTTPLimits/requestTimeout``: the attempt as a whole took too long.
    case request

    /// The name of the limit in ``HTTPLimits``.
    var limitName: String {
      switch self {
      case .connect: "connectTimeout"
      case .idle: "idleTimeout"
      case .request: "requestTimeout"
      }
    }
  }
}

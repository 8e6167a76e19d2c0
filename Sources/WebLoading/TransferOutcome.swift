/// How one attempt ended, before ``HTTPClient`` decides to retry, redirect or answer.
enum TransferOutcome: Sendable {
  /// The server answered a status below 400 and the body (if any) arrived whole.
  case completed(TransferResult)
  case failed(TransferFailure)
}

/// A response one attempt received in full.
struct TransferResult: Sendable {
  var status: Int
  /// Names lowercased, repeated ones joined with `", "`.
  var headers: [String: String]
  /// Empty for a redirect (its body is skipped) and for a 304.
  var body: [UInt8]
  /// Where a 3xx with a `Location` points, made absolute by libcurl.
  var redirectTarget: String?
  /// The URL that answered.
  var effectiveURL: String
}

/// Why one attempt did not give a response.
enum TransferFailure: Error, Sendable, Equatable {
  /// Refused, unknown host, reset, nothing received.
  case connection(String)
  case timeout(HTTPError.TimeoutPhase)
  /// A status of 400 or more; the body was not read.
  case status(Int)
  case cutShort(received: Int64, expected: Int64)
  /// Over ``HTTPLimits/maximumBytes``: declared by `Content-Length`, or nil when cut while
  /// streaming.
  case tooLarge(declared: Int64?)
  case rejected(String)
  case cancelled
  /// Anything else, with libcurl's message.
  case other(String)
}

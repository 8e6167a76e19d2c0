/// What one attempt of one URL asks of the ``TransferEngine``.
struct TransferRequest: Sendable {
  /// The URL, absolute.
  var url: String
  /// Scheme, host and port: what ``HTTPLimits/connectionsPerHost`` counts by.
  var hostKey: String
  /// Extra request headers, `"Name: value"`.
  var headers: [String]
  var limits: HTTPLimits
  /// Called on the engine's thread after every chunk of the body.
  var progress: (@Sendable (TransferProgress) -> Void)?
  /// Called on the engine's thread with the body so far until it answers.
  var inspect: (@Sendable ([UInt8]) -> HTTPInspection)?
}

/// How much of a body has arrived: bytes received of bytes expected.
///
/// ```swift
/// import WebLoading
///
/// let progress = TransferProgress(bytesReceived: 512, bytesExpected: 2048)
/// print(progress.fraction ?? 0)  // 0.25
/// ```
public struct TransferProgress: Sendable, Equatable {
  /// Body bytes received so far (of this attempt).
  public var bytesReceived: Int64
  /// The `Content-Length` of the body, when the server sent one.
  public var bytesExpected: Int64?

  /// Progress from its parts.
  public init(bytesReceived: Int64, bytesExpected: Int64?) {
    self.bytesReceived = bytesReceived
    self.bytesExpected = bytesExpected
  }

  /// `bytesReceived / bytesExpected` in 0...1, or nil when the length is unknown.
  public var fraction: Double? {
    guard let bytesExpected, bytesExpected > 0 else { return nil }
    return min(1, Double(bytesReceived) / Double(bytesExpected))
  }
}

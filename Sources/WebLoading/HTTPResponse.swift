import Foundation

/// A response that ended well: a `2xx` with its whole body, or a `304 Not Modified`.
///
/// ```swift
/// import WebLoading
///
/// func size(of url: URL) async throws(HTTPError) -> Int {
///   let response = try await HTTPClient.shared.get(url)
///   print(response.status, response.contentType ?? "no type", response.validators)
///   return response.body.count
/// }
/// ```
public struct HTTPResponse: Sendable {
  /// The URL asked for.
  public var url: URL
  /// The URL that answered, after redirects.
  public var finalURL: URL
  /// `200...299`, or `304`.
  public var status: Int
  /// The response's headers, names lowercased; repeated ones joined with `", "`.
  public var headers: [String: String]
  /// The body; empty for a `304`.
  public var body: [UInt8]
  /// The response's `ETag`, `Last-Modified` and length (for a `304`, those it did not
  /// repeat are the ones the request sent).
  public var validators: HTTPValidators

  /// A response from its parts.
  public init(
    url: URL, finalURL: URL, status: Int, headers: [String: String], body: [UInt8],
    validators: HTTPValidators
  ) {
    self.url = url
    self.finalURL = finalURL
    self.status = status
    self.headers = headers
    self.body = body
    self.validators = validators
  }

  /// The `Content-Type` header, as sent.
  public var contentType: String? { headers["content-type"] }

  /// Whether the server said the version the request named is still current (`304`).
  public var isNotModified: Bool { status == 304 }
}

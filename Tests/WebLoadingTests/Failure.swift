import WebLoading

/// The error a request threw, or nil when it answered.
func failure(of request: () async throws(HTTPError) -> HTTPResponse) async -> HTTPError? {
  do {
    _ = try await request()
    return nil
  } catch {
    return error
  }
}

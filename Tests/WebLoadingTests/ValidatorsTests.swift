import Testing
import WebLoading

@Suite struct ValidatorsTests {
  @Test func aStrongETagIsTheVersion() {
    let validators = HTTPValidators(
      etag: "\"5f3a-1c2b\"", lastModified: "Wed, 02 Dec 2026 00:28:58 GMT", length: 12)
    #expect(validators.sourceVersion == "etag:\"5f3a-1c2b\"")
    #expect(
      HTTPValidators(sourceVersion: "etag:\"5f3a-1c2b\"")
        == HTTPValidators(etag: "\"5f3a-1c2b\"", lastModified: nil, length: nil))
  }

  @Test func aWeakETagGivesWayToTheDateAndLength() {
    let validators = HTTPValidators(
      etag: "W/\"5f3a\"", lastModified: "Wed, 02 Dec 2026 00:28:58 GMT", length: 791_555)
    #expect(validators.sourceVersion == "modified:Wed, 02 Dec 2026 00:28:58 GMT;length:791555")
    #expect(
      HTTPValidators(sourceVersion: "modified:Wed, 02 Dec 2026 00:28:58 GMT;length:791555")
        == HTTPValidators(
          etag: nil, lastModified: "Wed, 02 Dec 2026 00:28:58 GMT", length: 791_555))
  }

  @Test func nothingToTellVersionsApartIsNoVersion() {
    #expect(HTTPValidators(etag: "W/\"5f3a\"", lastModified: nil, length: 10).sourceVersion == nil)
    #expect(HTTPValidators(etag: nil, lastModified: "x", length: nil).sourceVersion == nil)
    #expect(HTTPValidators(etag: nil, lastModified: nil, length: nil).sourceVersion == nil)
  }

  @Test func versionsItDidNotMakeAreNotRead() {
    for version in [
      "", "etag:", "etag:W/\"a\"", "modified:;length:3", "modified:x;length:", "modified:x",
      "modified:x;length:-1", "file:1234", "\"5f3a\"",
    ] {
      #expect(HTTPValidators(sourceVersion: version) == nil, "\(version)")
    }
  }
}

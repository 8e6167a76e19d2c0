import Foundation
import Testing
import WebLoading

@Suite struct ErrorMessageTests {
  @Test func aStatusNamesItsReason() {
    let notFound = HTTPError.status(url: "http://h/a.jpg", code: 404, attempts: 1)
    #expect(notFound.description == "http://h/a.jpg: the server answered 404 Not Found")
    #expect(notFound.statusCode == 404)
    #expect(notFound.url == "http://h/a.jpg")
    let failed = HTTPError.status(url: "http://h/a.jpg", code: 503, attempts: 3)
    #expect(
      failed.description
        == "http://h/a.jpg: the server answered 503 Service Unavailable after 3 attempts; "
        + "the server failed, try again later")
  }

  @Test func aTimeoutNamesItsPhaseAndLimit() {
    let error = HTTPError.timedOut(url: "http://h/a.jpg", phase: .idle, seconds: 1.5, attempts: 1)
    #expect(
      error.description
        == "http://h/a.jpg: no byte arrived for 1.5 s (idle timeout) after 1 attempt; "
        + "the server is stalled or too slow, raise HTTPLimits.idleTimeout if it is only slow")
    #expect(error.statusCode == nil)
  }

  @Test func aLoopNamesItsChain() {
    let error = HTTPError.redirectLoop(
      url: "http://h/loop", chain: ["http://h/loop", "http://h/loop2", "http://h/loop"])
    #expect(
      error.description
        == "http://h/loop: redirect loop http://h/loop -> http://h/loop2 -> http://h/loop; "
        + "the server redirects in a circle, fix its redirects")
  }

  @Test func theDefaultsAreTheIssues() {
    let limits = HTTPLimits.standard
    #expect(limits.connectTimeout == .seconds(10))
    #expect(limits.idleTimeout == .seconds(20))
    #expect(limits.requestTimeout == .seconds(120))
    #expect(limits.maximumRedirects == 5)
    #expect(limits.maximumBytes == 100 * 1024 * 1024)
    #expect(limits.connectionsPerHost == 6)
    #expect(limits.totalConnections == 32)
    #expect(limits.retries == 2)
    #expect(limits.retryDelay == .milliseconds(250))
  }

  @Test func onlyWebURLsAreAsked() async {
    let client = HTTPClient()
    await #expect(throws: HTTPError.unsupportedScheme(url: "file:///etc/hosts")) {
      try await client.get(URL(fileURLWithPath: "/etc/hosts"))
    }
    #expect(client.attemptsStarted == 0)
  }
}

import Foundation
import ImageCaching
import ImageToolManifest
import Locking
import Vips
import WebLoading

/// What `imgtool render` adds for URLs: its options (`--urls`, `--timeout`,
/// `--retries`), the help that explains them, the client a render downloads with, and
/// how URL outcomes show in the progress lines and the JSON summary.
struct URLOptions: Sendable {
  static let specs: [CommandSpec.Option] = [
    .init(
      "urls", value: "file",
      help: "Also render the URLs in this file: one a line, 'id<TAB>url' to name its id, "
        + "# comments; - reads standard input."),
    .init(
      "timeout", value: "seconds",
      help: "Fail a URL when no byte arrives for this long (default 20; also caps the 10 s "
        + "to connect)."),
    .init(
      "max-size", value: "MiB",
      help: "The largest photo a URL may send, in MiB (default 100): a larger Content-Length "
        + "is refused before the body, a body passing it is cut off."),
    .init(
      "retries", value: "n",
      help: "How many times a URL is tried again after a failed connection, a timeout or a "
        + "5xx (default 2; never after a 4xx)."),
  ]

  static let discussion = """
    URLs (http:// and https://, given as paths or listed with --urls) are downloaded and \
    rendered like files. A URL's entity id is the URL itself, unless its --urls line names \
    one ('id<TAB>url'); its source version is what the server says (a strong ETag, else \
    Last-Modified with the length; a hash of the bytes when it says neither). A URL whose \
    entries are stored is asked with If-None-Match / If-Modified-Since: a 304 is up to \
    date (nothing downloaded, nothing written), and so is a 200 of the same version; \
    --force downloads and redraws all. The image is known by its bytes, never by its \
    Content-Type: an HTML page is named as one, and the pixel limits are checked as soon \
    as the header has arrived. Limits: 10 s to connect, --timeout (20 s) without a byte, \
    120 s per attempt, 5 redirects, --max-size (100 MiB) a photo, 6 connections per host, --retries (2) \
    for connection failures, timeouts and 5xx. A failed URL is named with its reason and \
    its HTTP status (--json: "url", "status"), nothing is written for it, and the exit \
    status is 1.
    """

  /// The loader every URL of the render goes through.
  let loader: HTTPSourceLoader
  /// What the read-only look was answered, so that the render does not ask again.
  let answers = Lock<[String: URLRender.Answer]>([:])

  /// The render's URL options; nil when it has no URL to render (no client is made).
  init?(_ arguments: ParsedArguments, inputs: [RenderInputs.Input]) throws(CommandLineError) {
    let limits = try URLRender.limits(arguments)
    guard inputs.contains(where: { $0.url != nil }) else { return nil }
    loader = HTTPSourceLoader(limits: limits)
  }

  /// The URL render over `cache`'s tables of `formats`.
  func render(cache: ImageCache, formats: [String]) -> URLRender {
    URLRender(loader: loader, cache: cache, formats: formats, answers: answers)
  }

  /// The body bytes the read-only look downloaded (200s of an unchanged version).
  var downloadedInLook: Int {
    answers.withLock { answers in
      answers.values.reduce(0) { total, answer in
        if case .upToDate(_, let downloaded) = answer { return total + downloaded }
        return total
      }
    }
  }

  /// How many photos are under way at once: `jobs` decode, and as many more again
  /// (at least 6, a host's connections) download ahead of them, so that the workers
  /// never wait for the network and the bytes held stay a few photos' worth.
  func window(jobs: Int) -> Int { jobs + max(6, 2 * jobs) }

  /// What a progress line adds for a URL: the bytes downloaded, or that the server
  /// answered 304.
  static func note(_ outcome: RenderCommand.Outcome) -> String {
    if outcome.notModified { return " (304 Not Modified, nothing downloaded)" }
    guard outcome.downloaded > 0 else { return "" }
    return " (\(ByteCountText.describe(outcome.downloaded)) downloaded)"
  }

  /// A failure's JSON fields for a URL: the URL and the HTTP status (null when the
  /// failure was not a status).
  static func json(_ failedURLs: [String: Int?], path: String) -> [(String, JSONValue)] {
    guard let status = failedURLs[path] else { return [] }
    return [("url", .string(path)), ("status", status.map(JSONValue.integer) ?? .null)]
  }
}

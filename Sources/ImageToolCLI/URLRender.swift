import Foundation
import ImageCaching
import ImageTables
import Locking
import WebLoading

/// The URL half of `imgtool render`: each URL is fetched here (conditionally when its
/// entries are stored: `If-None-Match` / `If-Modified-Since` with the validators its
/// source version stands for), and filled from the bytes that came, its version the
/// response's.
///
/// A `304` is up to date, with nothing written and no body downloaded; a `200` whose
/// version is the stored one is up to date too; anything else fills. A failed download
/// fills nothing and names the URL, the reason and the HTTP status.
struct URLRender: Sendable {
  let loader: HTTPSourceLoader
  /// Each URL entity's stored version, per format (entity id to version).
  let stored: [String: [String: String]]
  /// What the read-only look before the render was answered, by entity id: the render
  /// does not ask again (nor download a changed photo twice).
  let answers: Lock<[String: Answer]>

  init(
    loader: HTTPSourceLoader, cache: ImageCache?, formats: [String],
    answers: Lock<[String: Answer]>
  ) {
    self.loader = loader
    self.answers = answers
    stored = Self.storedVersions(cache, formats: formats)
  }

  /// What the tables of `formats` hold: for each, entity id to source version.
  static func storedVersions(_ cache: ImageCache?, formats: [String]) -> [String: [String: String]]
  {
    guard let cache else { return [:] }
    return Dictionary(
      uniqueKeysWithValues: formats.compactMap { name in
        cache.table(format: name).map { table in
          (
            name,
            Dictionary(
              table.entries().map { ($0.entityID, $0.sourceVersion) },
              uniquingKeysWith: { first, _ in first })
          )
        }
      })
  }

  /// The version every one of `formats` holds for `id`; nil when one lacks it or they
  /// differ.
  func storedVersion(_ id: String, formats: [String]) -> String? {
    let versions = Set(formats.map { stored[$0]?[id] })
    guard versions.count == 1, let version = versions.first else { return nil }
    return version
  }

  /// What one URL's fetch gave: up to date (with or without a body) or bytes to fill.
  enum Answer: Sendable {
    case upToDate(notModified: Bool, downloaded: Int)
    case changed(Entity, downloaded: Int)
  }

  /// Asks the server about `input`: conditionally when its entries are stored.
  func ask(_ input: RenderInputs.Input, formats: [String], cache: ImageCache, force: Bool)
    async throws(HTTPSourceError) -> Answer
  {
    let url = input.url!
    let version = force ? nil : storedVersion(input.entityID, formats: formats)
    let stored = version.map {
      Entity(id: input.entityID, sourceVersion: $0, source: .url(url))
    }
    let storedEntries =
      stored.map { entity in
        formats.allSatisfy { cache.contains(entity, format: $0) }
      } ?? false
    let validators = storedEntries ? version.flatMap(HTTPValidators.init(sourceVersion:)) : nil
    switch try await loader.fetch(url, validators: validators) {
    case .notModified:
      return .upToDate(notModified: true, downloaded: 0)
    case .fetched(let bytes, let sourceVersion):
      let entity = Entity(
        id: input.entityID, sourceVersion: sourceVersion,
        source: .bytes(bytes, name: url.absoluteString))
      if !force, formats.allSatisfy({ cache.contains(entity, format: $0) }) {
        return .upToDate(notModified: false, downloaded: bytes.count)
      }
      return .changed(entity, downloaded: bytes.count)
    }
  }

  /// One URL: fetched, skipped if up to date, else filled into `formats`.
  func render(
    _ input: RenderInputs.Input, family: String, formats: [String], cache: ImageCache,
    force: Bool
  ) async -> RenderCommand.Outcome {
    if formats.isEmpty { return RenderCommand.Outcome(leftOut: true) }
    let answer: Answer
    // An answer kept: from the read-only look, or from this URL's failed fill, which
    // the render tries again alone (libvips's shared error buffer): not downloaded twice.
    if let asked = answers.withLock({ $0.removeValue(forKey: input.entityID) }) {
      answer = asked
    } else {
      do {
        answer = try await ask(input, formats: formats, cache: cache, force: force)
      } catch {
        return RenderCommand.Outcome(
          failure: Self.reason(error), httpStatus: error.statusCode, retryAlone: false)
      }
    }
    switch answer {
    case .upToDate(let notModified, let downloaded):
      return RenderCommand.Outcome(skipped: true, downloaded: downloaded, notModified: notModified)
    case .changed(let entity, let downloaded):
      let missing = force ? formats : formats.filter { !cache.contains(entity, format: $0) }
      do {
        // Its entries are not read back (as a file photo's): a look-up would read and
        // check every pixel just written, and map its pages again.
        let written = try await cache.fillWithoutReading(
          entity, family: family, only: Set(missing), force: force)
        return RenderCommand.Outcome(written: written.count, downloaded: downloaded)
      } catch {
        answers.withLock { $0[input.entityID] = answer }
        var reason = RenderCommand.reason(error, path: input.path)
        if case .fillUndone(_, _, _, .keyTooLong) = error {
          // A URL is its id unless a list names one: a short one fits.
          reason += "; give this URL a shorter id with a --urls line 'id<TAB>url'"
        }
        return RenderCommand.Outcome(failure: reason, downloaded: downloaded)
      }
    }
  }

  /// For the read-only look: whether every URL of `inputs` is up to date in `cache`
  /// (asked 16 at a time; the first that is not ends the look, those under way
  /// finishing). The answers are kept in ``answers`` for the render that may follow,
  /// which asks no URL twice.
  func allUpToDate(
    _ inputs: [(input: RenderInputs.Input, formats: [String])], cache: ImageCache
  ) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
      var pending = inputs[...]
      func startNext() {
        guard let (input, formats) = pending.popFirst() else { return }
        group.addTask {
          guard !formats.isEmpty else { return true }
          guard self.storedVersion(input.entityID, formats: formats) != nil,
            let answer = try? await self.ask(input, formats: formats, cache: cache, force: false)
          else { return false }
          self.answers.withLock { $0[input.entityID] = answer }
          if case .upToDate = answer { return true }
          return false
        }
      }
      for _ in 0..<16 { startNext() }
      // After the first that is not, no more are asked; those under way finish, and
      // their answers serve the render.
      var all = true
      for await upToDate in group {
        all = all && upToDate
        if all { startNext() }
      }
      return all
    }
  }

  /// The error without the URL, which the summary puts in front, in the command line's
  /// words.
  static func reason(_ error: HTTPSourceError) -> String {
    // The command line changes those limits with its options, not in code.
    let options = [
      ("HTTPLimits.idleTimeout", "--timeout"), ("HTTPLimits.connectTimeout", "--timeout"),
      ("HTTPLimits.maximumBytes", "--max-size"),
    ]
    let text = options.reduce(error.description) {
      $0.replacingOccurrences(of: $1.0, with: $1.1)
    }
    let prefix = error.url + ": "
    return text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text
  }

  /// The `--timeout`, `--retries` and `--max-size` of a render, over the standard limits.
  static func limits(_ arguments: ParsedArguments) throws(CommandLineError) -> HTTPLimits {
    var limits = HTTPLimits.standard
    if let text = arguments.value("timeout") {
      guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
        throw .invalidValue(
          option: "--timeout", value: text, reason: "give seconds, more than 0 and at most 3600")
      }
      let duration = Duration.milliseconds(Int64((seconds * 1000).rounded(.up)))
      limits.idleTimeout = duration
      limits.connectTimeout = min(limits.connectTimeout, duration)
    }
    limits.retries = try arguments.integer("retries", in: 0...10, default: limits.retries)
    let mebibytes = try arguments.integer("max-size", in: 1...65_536, default: 100)
    limits.maximumBytes = Int64(mebibytes) << 20
    return limits
  }
}

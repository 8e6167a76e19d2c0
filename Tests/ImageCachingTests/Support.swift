import Foundation
import ImageTables
import Locking
import TestFixtures
import Testing

@testable import ImageCaching

/// This target's short names for the fixtures of `TestFixtures` (Tests/Fixtures).
enum Photos {
  static let names = ["astronaut.png", "chelsea.png", "coffee.png", "hubble.jpg", "rocket.jpg"]

  static func bundled(_ name: String) -> String { Fixtures.photo(name) }

  static func bytes(_ name: String) throws -> [UInt8] { try Fixtures.bytes(name) }

  static func temporaryFolder() throws -> URL { try Fixtures.temporaryFolder() }
}

/// The avatar family of the built-in manifest, smaller, plus a photo family.
func testFormats() throws -> [ImageFormat] {
  [
    try ImageFormat(
      name: "avatar.small", family: "avatar", width: 16, height: 16, scale: 2, maximumCount: 50,
      pipeline: "fill(crop: attention) | circle"),
    try ImageFormat(
      name: "avatar.medium", family: "avatar", width: 32, height: 32, scale: 2, maximumCount: 50,
      pipeline: "fill(crop: attention) | circle"),
    try ImageFormat(
      name: "avatar.large", family: "avatar", width: 64, height: 64, scale: 2, maximumCount: 50,
      pipeline: "fill(crop: attention) | circle"),
    try ImageFormat(
      name: "photo.thumb", family: "photo", width: 40, height: 30, style: .bgr32, maximumCount: 50,
      devices: [.phone], pipeline: "fill"),
  ]
}

func makeCache(
  _ folder: URL? = nil, workers: Int = 2, loader: any SourceLoader = FileURLLoader(),
  device: DeviceClass = .server
) throws -> ImageCache {
  try ImageCache(
    configuration: CacheConfiguration(
      directory: folder ?? Photos.temporaryFolder(), formats: testFormats(), device: device,
      workers: workers, loader: loader))
}

func entity(_ name: String, version: String = "v1") -> Entity {
  Entity(id: name, sourceVersion: version, source: .file(Photos.bundled(name)))
}

/// A URL loader that waits before answering, counts its loads and how many ran at once.
final class SlowLoader: SourceLoader, Sendable {
  let delay: Duration
  let answer: @Sendable (URL) throws -> [UInt8]
  private let counts = Lock((loads: 0, running: 0, mostAtOnce: 0))

  init(delay: Duration = .milliseconds(300), answer: @escaping @Sendable (URL) throws -> [UInt8]) {
    self.delay = delay
    self.answer = answer
  }

  var loads: Int { counts.withLock { $0.loads } }
  var mostAtOnce: Int { counts.withLock { $0.mostAtOnce } }

  func load(_ url: URL) async throws -> [UInt8] {
    counts.withLock {
      $0.loads += 1
      $0.running += 1
      $0.mostAtOnce = max($0.mostAtOnce, $0.running)
    }
    defer { counts.withLock { $0.running -= 1 } }
    try await Task.sleep(for: delay)
    return try answer(url)
  }
}

/// A URL loader that holds every load at a ``Gate`` until it opens, so a test can act
/// while a load is known to be under way without guessing at times.
final class GatedLoader: SourceLoader, Sendable {
  let answer: @Sendable (URL) throws -> [UInt8]
  let gate = Gate()

  init(answer: @escaping @Sendable (URL) throws -> [UInt8]) { self.answer = answer }

  /// Returns once a load has reached the gate.
  func waitUntilLoading() async { await gate.waitUntilArrived() }

  /// Returns once a load has passed the gate and returned (or thrown).
  func waitUntilReturned() async { await gate.waitUntilReturned() }

  /// How many loads found their task cancelled once past the gate: the cache had
  /// stopped the work it no longer needed.
  var cancelledAfterGate: Int { gate.cancelledAfterPassing }

  /// Lets every held load, and every later one, go on.
  func open() { gate.open() }

  func load(_ url: URL) async throws -> [UInt8] {
    await gate.pass()
    defer { gate.returned() }
    return try answer(url)
  }
}

/// Returns once the cache's only fill has ended, having written entries or failed.
/// Polls; a test that uses it sets a `.timeLimit` in case the fill never ends.
func waitForTheOnlyFillToEnd(of cache: ImageCache) async throws {
  while cache.statistics.entriesWritten == 0 && cache.statistics.failures == 0 {
    try await Task.sleep(for: .milliseconds(5))
  }
}

/// The photo named by a `test:` URL's last component.
let photoLoader: @Sendable (URL) throws -> [UInt8] = { url in
  try Photos.bytes(url.lastPathComponent)
}

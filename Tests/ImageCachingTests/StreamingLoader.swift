import Foundation
import Locking
import TestFixtures

@testable import ImageCaching

/// A URL loader whose one load streams the chunks a test sends through its ``feed``,
/// reporting the bytes so far (of `expected`) after each, and honouring cancellation as
/// a real transfer does: a cancelled load throws at once.
final class StreamingLoader: SourceLoader, Sendable {
  let feed = ChunkFeed()
  let expected: Int64?
  private let count = Lock(0)

  init(expected: Int64?) { self.expected = expected }

  /// How many loads the cache asked for.
  var loads: Int { count.withLock { $0 } }

  func load(_ url: URL) async throws -> [UInt8] { try await load(url) { _ in } }

  func load(_ url: URL, progress: @escaping @Sendable (LoadProgress) -> Void) async throws
    -> [UInt8]
  {
    count.withLock { $0 += 1 }
    var bytes: [UInt8] = []
    while let chunk = try await feed.next() {
      bytes += chunk
      progress(LoadProgress(bytesReceived: Int64(bytes.count), bytesExpected: expected))
    }
    return bytes
  }
}

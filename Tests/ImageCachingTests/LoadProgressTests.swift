import Foundation
import ImageTables
import Locking
import TestFixtures
import Testing

@testable import ImageCaching

/// The progress of a fill's source load, as every request waiting for it hears it, and
/// what happens to the load when those requests leave. The loader streams the chunks
/// each test sends (no sleeps, no timing): the test knows what has arrived.
@Suite("Load progress", .timeLimit(.hangGuard))
struct LoadProgressTests {
  /// rocket.jpg's bytes in three chunks, and the progress each brings.
  struct Chunks {
    let bytes: [UInt8]
    let parts: [[UInt8]]
    var total: Int64 { Int64(bytes.count) }

    init() throws {
      bytes = try Photos.bytes("rocket.jpg")
      let third = bytes.count / 3
      parts = [
        Array(bytes[..<third]), Array(bytes[third..<(2 * third)]), Array(bytes[(2 * third)...]),
      ]
    }

    /// What the loader reports once `count` chunks have come.
    func progress(after count: Int) -> LoadProgress {
      LoadProgress(
        bytesReceived: Int64(parts.prefix(count).reduce(0) { $0 + $1.count }),
        bytesExpected: total)
    }
  }

  let rocket = Entity(
    id: "https://example.com/rocket.jpg", sourceVersion: "1",
    source: .url(URL(string: "https://example.com/rocket.jpg")!))

  /// The avatar.large entry a fill from the file writes: what a streamed load must give.
  func reference() async throws -> [UInt8] {
    let cache = try makeCache()
    let bitmap = try await cache.image(for: entity("rocket.jpg"), format: "avatar.large")
    return Array(bitmap.bytes)
  }

  @Test func twoMergedRequestsHearTheSameProgressAndALateOneTheNewestAtOnce() async throws {
    let chunks = try Chunks()
    let loader = StreamingLoader(expected: chunks.total)
    let cache = try makeCache(loader: loader)
    let (first, second) = (Recorder<LoadProgress>(), Recorder<LoadProgress>())
    let rocket = rocket
    let early = Task {
      try await cache.image(for: rocket, format: "avatar.large") { first.record($0) }
    }
    await loader.feed.waitUntilAsked(1)
    loader.feed.send(chunks.parts[0])
    await first.waitUntil(count: 1)
    // A request that joins now hears the newest progress at once, before any new chunk.
    let late = Task {
      try await cache.image(for: rocket, format: "avatar.large") { second.record($0) }
    }
    await second.waitUntil(count: 1)
    #expect(second.values == [chunks.progress(after: 1)])
    #expect(cache.statistics.mergedRequests == 1)
    loader.feed.send(chunks.parts[1])
    await first.waitUntil(count: 2)
    await second.waitUntil(count: 2)
    loader.feed.send(chunks.parts[2])
    loader.feed.finish()
    let (a, b) = (try await early.value, try await late.value)
    // Every report came before its request returned: nothing is left to come.
    let expected = (1...3).map(chunks.progress(after:))
    #expect(first.values == expected)
    #expect(second.values == expected)
    #expect(expected.last?.fraction == 1)
    #expect(loader.loads == 1)
    #expect(cache.statistics.fills == 1 && cache.statistics.decodes == 1)
    let reference = try await reference()
    #expect(Array(a.bytes) == reference && Array(b.bytes) == reference)
  }

  @Test func aRequestThatLeavesHearsNoMoreAndTheOtherKeepsTheLoadGoing() async throws {
    let chunks = try Chunks()
    let loader = StreamingLoader(expected: chunks.total)
    let cache = try makeCache(loader: loader)
    let (leaving, staying) = (Recorder<LoadProgress>(), Recorder<LoadProgress>())
    let rocket = rocket
    let gone = Task {
      try await cache.image(for: rocket, format: "avatar.large") { leaving.record($0) }
    }
    await loader.feed.waitUntilAsked(1)
    let kept = Task {
      try await cache.fill(rocket, family: "avatar") { staying.record($0) }
    }
    loader.feed.send(chunks.parts[0])
    await leaving.waitUntil(count: 1)
    await staying.waitUntil(count: 1)
    gone.cancel()
    await #expect(throws: CacheError.cancelled(entityID: rocket.id)) { try await gone.value }
    loader.feed.send(chunks.parts[1])
    await staying.waitUntil(count: 2)
    loader.feed.send(chunks.parts[2])
    loader.feed.finish()
    let filled = try await kept.value
    #expect(leaving.values == [chunks.progress(after: 1)])  // none after it left
    #expect(staying.values == (1...3).map(chunks.progress(after:)))
    #expect(!loader.feed.sawCancellation)
    #expect(Set(filled.keys) == ["avatar.small", "avatar.medium", "avatar.large"])
    #expect(try Array(#require(filled["avatar.large"]).bytes) == (try await reference()))
    #expect(cache.statistics.entriesWritten == 3 && cache.statistics.failures == 0)
  }

  @Test func theLastRequestLeavingCancelsTheLoadAndNothingIsWritten() async throws {
    let chunks = try Chunks()
    let loader = StreamingLoader(expected: chunks.total)
    let cache = try makeCache(loader: loader)
    let seen = Recorder<LoadProgress>()
    let rocket = rocket
    let only = Task {
      try await cache.image(for: rocket, format: "avatar.large") { seen.record($0) }
    }
    await loader.feed.waitUntilAsked(1)
    loader.feed.send(chunks.parts[0])
    await seen.waitUntil(count: 1)
    await loader.feed.waitUntilAsked(2)  // the load waits for its second chunk
    only.cancel()
    await #expect(throws: CacheError.cancelled(entityID: rocket.id)) { try await only.value }
    // The cancellation reached the loader's own task: its read threw.
    await loader.feed.waitUntilCancelled()
    await cache.waitForFills()
    #expect(seen.values == [chunks.progress(after: 1)])
    #expect(cache.statistics.entriesWritten == 0 && cache.statistics.failures == 1)
    #expect(cache.statistics.decodes == 0)
    for format in ["avatar.small", "avatar.medium", "avatar.large"] {
      #expect(!cache.contains(rocket, format: format))
    }
  }

  /// A handler that cancels its own request (from inside the call) is not called again,
  /// and the request ends once the handler has returned; nothing deadlocks.
  @Test func aHandlerMayCancelItsOwnRequest() async throws {
    let chunks = try Chunks()
    let loader = StreamingLoader(expected: chunks.total)
    let cache = try makeCache(loader: loader)
    let seen = Recorder<LoadProgress>()
    let request = Lock<Task<Bitmap, any Error>?>(nil)
    let rocket = rocket
    let task = Task {
      try await cache.image(for: rocket, format: "avatar.large") { progress in
        request.withLock { $0 }?.cancel()
        seen.record(progress)
      }
    }
    request.withLock { $0 = task }
    await loader.feed.waitUntilAsked(1)
    loader.feed.send(chunks.parts[0])
    await #expect(throws: CacheError.cancelled(entityID: rocket.id)) { try await task.value }
    #expect(seen.values == [chunks.progress(after: 1)])
    await loader.feed.waitUntilCancelled()
    await cache.waitForFills()
    #expect(cache.statistics.entriesWritten == 0)
  }

  @Test func aHitAndAFileSourceReportNothing() async throws {
    let loader = StreamingLoader(expected: nil)
    let cache = try makeCache(loader: loader)
    let seen = Recorder<LoadProgress>()
    let file = entity("coffee.png")
    _ = try await cache.image(for: file, format: "avatar.small") { seen.record($0) }
    _ = try await cache.image(for: file, format: "avatar.small") { seen.record($0) }
    #expect(seen.values.isEmpty)
    #expect(loader.loads == 0 && cache.statistics.fills == 1)
  }
}

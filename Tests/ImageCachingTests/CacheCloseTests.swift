import Foundation
import ImageTables
import Synchronization
import TestFixtures
import Testing

@testable import ImageCaching

/// `close()` ends a cache's writing and lets go of its tables' writer locks, so a
/// second `ImageCache` on the folder, in this process, becomes the writer.
@Suite("Closing a cache")
struct CacheCloseTests {
  func configuration(_ folder: URL, waitForWriter: Bool = false, readOnly: Bool = false) throws
    -> CacheConfiguration
  {
    CacheConfiguration(
      directory: folder, formats: try testFormats(), readOnly: readOnly,
      waitForWriter: waitForWriter)
  }

  @Test func aSecondCacheOnTheFolderNamesThisProcessUntilTheFirstCloses() async throws {
    let folder = try Photos.temporaryFolder()
    let first = try ImageCache(configuration: configuration(folder))
    let kept = try await first.image(for: entity("rocket.jpg"), format: "avatar.small")
    let lock = ImageTable.paths(formatName: "avatar.small", directory: folder).lock
    #expect(
      throws: CacheError.table(
        format: "avatar.small", error: .lockedInThisProcess(path: lock, pid: getpid()))
    ) { try ImageCache(configuration: configuration(folder)) }
    first.close()
    first.close()  // does nothing more
    // A closed cache still serves hits, and fills nothing.
    #expect(first.cachedImage(for: entity("rocket.jpg"), format: "avatar.small") != nil)
    await #expect(throws: CacheError.closed(directory: folder.path)) {
      try await first.fill(entity("hubble.jpg"), family: "avatar")
    }
    #expect(
      CacheError.closed(directory: folder.path).description
        == "the cache in \(folder.path) was closed: it fills nothing more; open a new ImageCache")
    let second = try ImageCache(configuration: configuration(folder))
    let again = try #require(second.cachedImage(for: entity("rocket.jpg"), format: "avatar.small"))
    #expect(Array(again.bytes) == Array(kept.bytes))
    try await second.fill(entity("hubble.jpg"), family: "avatar")
    #expect(second.contains(entity("hubble.jpg"), format: "avatar.large"))
  }

  /// With `waitForWriter`, the second cache opens once the first closes, not before:
  /// the flag is set just before `close()`, and the second finds it set.
  @Test(.timeLimit(.hangGuard)) func waitForWriterWaitsForTheFirstCachesClose() async throws {
    let folder = try Photos.temporaryFolder()
    let first = try ImageCache(configuration: configuration(folder))
    try await first.fill(entity("rocket.jpg"), family: "avatar")
    let closing = Atomic(false)
    let opened = try configuration(folder, waitForWriter: true)
    // The open blocks in flock until the close: on a thread of its own, not a
    // cooperative one (see onOwnThread).
    let second = Task {
      try await onOwnThread {
        let cache = try ImageCache(configuration: opened)
        return (closing.load(ordering: .sequentiallyConsistent), cache)
      }
    }
    try await Task.sleep(for: .milliseconds(200))  // let it reach the lock (or not: same end)
    closing.store(true, ordering: .sequentiallyConsistent)
    first.close()
    let (sawClose, cache) = try await second.value
    #expect(sawClose)
    #expect(cache.contains(entity("rocket.jpg"), format: "avatar.medium"))
    #expect(cache.configuration.waitForWriter && !cache.configuration.readOnly)
  }

  /// Closing answers every waiting fill at once, and the ones queued never run.
  @Test(.timeLimit(.hangGuard)) func closeAnswersWaitingFills() async throws {
    let loader = GatedLoader(answer: photoLoader)
    let folder = try Photos.temporaryFolder()
    let cache = try makeCache(folder, loader: loader)
    let slow = Entity(
      id: "slow", sourceVersion: "1", source: .url(URL(string: "test:/rocket.jpg")!))
    let waiting = Task { try await cache.fill(slow, family: "avatar") }
    await loader.waitUntilLoading()
    cache.close()
    await #expect(throws: CacheError.closed(directory: folder.path)) { try await waiting.value }
    loader.open()
    await cache.waitForFills()
    #expect(!cache.contains(slow, format: "avatar.small"))
    // The locks are free: a new cache on the folder is the writer.
    let next = try makeCache(folder, loader: loader)
    try await next.fill(slow, family: "avatar")
    #expect(next.contains(slow, format: "avatar.small"))
  }

  @Test func readOnlyIsAnInitialiserParameter() async throws {
    let folder = try Photos.temporaryFolder()
    let writer = try ImageCache(configuration: configuration(folder))
    try await writer.fill(entity("rocket.jpg"), family: "avatar")
    writer.close()
    let reader = try ImageCache(configuration: configuration(folder, readOnly: true))
    #expect(reader.contains(entity("rocket.jpg"), format: "avatar.large"))
    await #expect(
      throws: CacheError.fillUndone(
        entityID: "hubble.jpg", family: "avatar", removed: [],
        error: .readOnly(format: "avatar.small"))
    ) { try await reader.fill(entity("hubble.jpg"), family: "avatar") }
  }
}

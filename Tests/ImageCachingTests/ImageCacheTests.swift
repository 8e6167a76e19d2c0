import Foundation
import ImageTables
import TestFixtures
import Testing
import Vips

@testable import ImageCaching

@Suite("Image cache")
struct ImageCacheTests {
  @Test func aFamilyFillDecodesOnce() async throws {
    let cache = try makeCache()
    let written = try await cache.fill(entity("rocket.jpg"), family: "avatar")
    #expect(Set(written.keys) == ["avatar.small", "avatar.medium", "avatar.large"])
    #expect(cache.statistics.decodes == 1)
    #expect(cache.statistics.entriesWritten == 3)
    for (name, side) in [("avatar.small", 32), ("avatar.medium", 64), ("avatar.large", 128)] {
      let bitmap = try #require(cache.cachedImage(for: entity("rocket.jpg"), format: name))
      #expect((bitmap.width, bitmap.height) == (side, side))
      #expect(bitmap.pixel(x: 0, y: 0).alpha == 0)  // circle corners
      #expect(bitmap.pixel(x: side / 2, y: side / 2).alpha == 255)
    }
    // Up to date: a second fill decodes nothing.
    try await cache.fill(entity("rocket.jpg"), family: "avatar")
    #expect(cache.statistics.decodes == 1)
    // Five photos: five decodes, fifteen entries.
    for name in Photos.names { try await cache.fill(entity(name), family: "avatar") }
    #expect(cache.statistics.decodes == 5)
  }

  @Test func afterWaitingForFillsTheNextWriterOpensAtOnce() async throws {
    // A fill's caller is answered just before the fill's task lets go of the cache (and
    // so of its tables' writer locks). Held there by a hook, the task keeps them:
    let held = try Photos.temporaryFolder()
    let release = DispatchSemaphore(value: 0)
    do {
      let cache = try makeCache(held)
      cache.setAfterAnswering { release.wait() }
      _ = try await cache.fill(entity("rocket.jpg"), family: "avatar")
    }
    #expect(throws: CacheError.self) { _ = try makeCache(held) }
    release.signal()
    // waitForFills() returns only once the task has let go: the next writer opens at once.
    let folder = try Photos.temporaryFolder()
    do {
      let cache = try makeCache(folder)
      cache.setAfterAnswering { Thread.sleep(forTimeInterval: 0.2) }
      _ = try await cache.fill(entity("rocket.jpg"), family: "avatar")
      await cache.waitForFills()
    }
    #expect(throws: Never.self) { _ = try makeCache(folder) }
  }

  @Test func aFamilyFillEqualsFillingEachFormatAlone() async throws {
    let family = try makeCache()
    let alone = try makeCache()
    for name in ["hubble.jpg", "chelsea.png"] {
      try await family.fill(entity(name), family: "avatar")
      for format in family.formatNames(family: "avatar") {
        try await alone.fill(entity(name), family: "avatar", only: [format])
      }
      #expect(alone.statistics.decodes == family.statistics.decodes * 3)
      for format in family.formatNames(family: "avatar") {
        let a = try #require(family.cachedImage(for: entity(name), format: format))
        let b = try #require(alone.cachedImage(for: entity(name), format: format))
        let worst = zip(a.bytes, b.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 1, "\(name) \(format): bytes differ by \(worst)")
      }
    }
  }

  @Test func aNewSourceVersionRerenders() async throws {
    let cache = try makeCache()
    let first = Entity(id: "face", sourceVersion: "a", source: .file(Photos.bundled("chelsea.png")))
    let second = Entity(id: "face", sourceVersion: "b", source: .file(Photos.bundled("coffee.png")))
    let old = try await cache.image(for: first, format: "avatar.large")
    let new = try await cache.image(for: second, format: "avatar.large")
    #expect(cache.statistics.decodes == 2)
    #expect(cache.cachedImage(for: first, format: "avatar.large") == nil)
    // A hit is a new view of the same mapped bytes (each view holds its own pin).
    #expect(
      cache.cachedImage(for: second, format: "avatar.large")?.bytes.baseAddress
        == new.bytes.baseAddress)
    #expect(Array(old.bytes) != Array(new.bytes))
    #expect(cache.table(format: "avatar.large")?.stats.entries == 1)
  }

  @Test func concurrentRequestsMergeIntoOneDecode() async throws {
    let loader = SlowLoader(answer: photoLoader)
    let cache = try makeCache(loader: loader)
    let face = Entity(
      id: "astronaut", sourceVersion: "1", source: .url(URL(string: "test:/astronaut.png")!))
    let bitmaps = try await withThrowingTaskGroup(of: Bitmap.self) { group in
      for index in 0..<12 {
        let format = ["avatar.small", "avatar.medium", "avatar.large"][index % 3]
        group.addTask { try await cache.image(for: face, format: format) }
      }
      return try await group.reduce(into: [Bitmap]()) { $0.append($1) }
    }
    #expect(bitmaps.count == 12)
    #expect(loader.loads == 1)
    #expect(cache.statistics.decodes == 1)
    #expect(cache.statistics.mergedRequests == 11)
  }

  @Test func everyWaiterGetsTheErrorAndNothingIsWritten() async throws {
    let loader = SlowLoader { _ in Array("this is not an image".utf8) }
    let cache = try makeCache(loader: loader)
    let broken = Entity(
      id: "broken", sourceVersion: "1", source: .url(URL(string: "test:/broken.jpg")!))
    let errors = await withTaskGroup(of: CacheError?.self) { group in
      for _ in 0..<6 {
        group.addTask {
          do {
            _ = try await cache.image(for: broken, format: "avatar.small")
            return nil
          } catch { return error as? CacheError }
        }
      }
      return await group.reduce(into: [CacheError?]()) { $0.append($1) }
    }
    let expected = CacheError.source(
      entityID: "broken", source: "test:/broken.jpg", error: .notAnImage(source: "test:/broken.jpg")
    )
    #expect(errors == Array(repeating: expected, count: 6))
    #expect(
      expected.description == "test:/broken.jpg: not an image: no loader recognises its contents")
    #expect(loader.loads == 1)
    for name in cache.formatNames(family: "avatar") {
      #expect(!cache.contains(broken, format: name))
    }
    #expect(cache.statistics.failures == 1)
  }

  @Test func aFailingPipelineWritesNothingForTheEntity() async throws {
    let folder = try Photos.temporaryFolder()
    var formats = try testFormats()
    formats.append(
      try ImageFormat(
        name: "avatar.raw", family: "avatar", width: 8, height: 8, pipeline: "grayscale"))
    let cache = try ImageCache(configuration: .init(directory: folder, formats: formats))
    await #expect(throws: CacheError.self) {
      try await cache.fill(entity("coffee.png"), family: "avatar")
    }
    for name in cache.formatNames(family: "avatar") {
      #expect(!cache.contains(entity("coffee.png"), format: name), "\(name)")
    }
    do {
      try await cache.fill(entity("coffee.png"), family: "avatar")
    } catch {
      // Decoded once with shrink-on-load only, which a PNG has not: the whole 600x400.
      #expect(
        error.description
          == "coffee.png: format 'avatar.raw': the pipeline made 600x400, larger than the 8x8 slot; "
          + "start the pipeline with fill or fit")
    }
  }

  @Test func prefetchFillsWithNoOneWaiting() async throws {
    let cache = try makeCache()
    let entities = Photos.names.map { entity($0) }
    let task = cache.prefetch(entities, family: "avatar")
    await task.value
    for item in entities {
      #expect(cache.contains(item, format: "avatar.medium"), "\(item.id)")
    }
    #expect(cache.statistics.decodes == 5)
  }

  @Test func deleteAndResetLeaveLiveBitmapsAlone() async throws {
    let cache = try makeCache()
    let bitmap = try await cache.image(for: entity("hubble.jpg"), format: "avatar.large")
    let before = Array(bitmap.bytes)
    cache.delete("hubble.jpg")
    #expect(cache.cachedImage(for: entity("hubble.jpg"), format: "avatar.large") == nil)
    for name in Photos.names { try await cache.fill(entity(name), family: "avatar", force: true) }
    #expect(Array(bitmap.bytes) == before)
    try cache.reset()
    #expect(cache.cachedImage(for: entity("rocket.jpg"), format: "avatar.large") == nil)
    for name in Photos.names { try await cache.fill(entity(name), family: "avatar") }
    #expect(Array(bitmap.bytes) == before)
  }

  @Test(.timeLimit(.hangGuard)) func cancelStopsAFillAndWritesNothing() async throws {
    let loader = GatedLoader(answer: photoLoader)
    let cache = try makeCache(loader: loader)
    let slow = Entity(
      id: "slow", sourceVersion: "1", source: .url(URL(string: "test:/rocket.jpg")!))
    let waiting = Task { try await cache.fill(slow, family: "avatar") }
    await loader.waitUntilLoading()
    cache.cancel(slow, family: "avatar")
    await #expect(throws: CacheError.cancelled(entityID: "slow")) { try await waiting.value }
    try await expectTheHeldLoadCancelled(loader, cache, slow)
  }

  // Were the waiter held until the load ends, it would wait at the gate: the limit ends it.
  @Test(.timeLimit(.hangGuard)) func theLastWaiterLeavingCancelsTheLoad() async throws {
    let loader = GatedLoader(answer: photoLoader)
    let cache = try makeCache(loader: loader)
    let slow = Entity(
      id: "slow", sourceVersion: "1", source: .url(URL(string: "test:/rocket.jpg")!))
    let waiting = Task { try await cache.image(for: slow, format: "avatar.small") }
    await loader.waitUntilLoading()
    waiting.cancel()
    // The waiter is let go while the load is still held at the gate, not when it ends.
    await #expect(throws: CacheError.cancelled(entityID: "slow")) { try await waiting.value }
    // No one waits any more: the cache cancelled the load's task, and the fill writes nothing.
    try await expectTheHeldLoadCancelled(loader, cache, slow)
  }

  /// Lets the load held at the gate go on, then expects that its task was cancelled and
  /// that its fill ended with one failure and nothing written in any avatar format.
  private func expectTheHeldLoadCancelled(
    _ loader: GatedLoader, _ cache: ImageCache, _ entity: Entity
  ) async throws {
    loader.open()
    await loader.waitUntilReturned()
    #expect(loader.cancelledAfterGate == 1)
    try await waitForTheOnlyFillToEnd(of: cache)
    #expect(cache.statistics.entriesWritten == 0)
    #expect(cache.statistics.failures == 1)
    for format in ["avatar.small", "avatar.medium", "avatar.large"] {
      #expect(!cache.contains(entity, format: format))
    }
  }

  @Test func workIsBoundedByTheWorkerCount() async throws {
    let loader = SlowLoader(delay: .milliseconds(100), answer: photoLoader)
    let cache = try makeCache(workers: 2, loader: loader)
    let entities = Photos.names.map {
      Entity(id: $0, sourceVersion: "1", source: .url(URL(string: "test:/\($0)")!))
    }
    await cache.prefetch(entities, family: "avatar").value
    #expect(loader.loads == 5)
    #expect(loader.mostAtOnce <= 2)
  }

  @Test func formatsNotKeptForTheDeviceHaveNoTable() async throws {
    let folder = try Photos.temporaryFolder()
    let server = try makeCache(folder, device: .server)
    #expect(server.table(format: "photo.thumb") == nil)
    #expect(
      !FileManager.default.fileExists(
        atPath: folder.appendingPathComponent("photo.thumb.table").path))
    await #expect(throws: CacheError.unknownFamily("photo")) {
      try await server.fill(entity("coffee.png"), family: "photo")
    }
    let phone = try makeCache(try Photos.temporaryFolder(), device: .phone)
    let thumb = try await phone.image(for: entity("coffee.png"), format: "photo.thumb")
    #expect(thumb.style == .bgr32 && (thumb.width, thumb.height) == (40, 30))
  }

  @Test func bytesSourcesNameThemselvesInErrors() async throws {
    let cache = try makeCache()
    let bytes = Entity(
      id: "upload-7", sourceVersion: "1", source: .bytes([1, 2, 3], name: "upload #7"))
    await #expect(
      throws: CacheError.source(
        entityID: "upload-7", source: "upload #7", error: .notAnImage(source: "upload #7"))
    ) { try await cache.fill(bytes, family: "avatar") }
    let good = Entity(
      id: "c", sourceVersion: "1", source: .bytes(try Photos.bytes("chelsea.png"), name: "chelsea"))
    #expect(try await cache.image(for: good, format: "avatar.small").width == 32)
  }

  @Test func bitmapsBecomeImagesToSave() async throws {
    let cache = try makeCache()
    let bitmap = try await cache.image(for: entity("coffee.png"), format: "avatar.medium")
    let image = try bitmap.image()
    #expect((image.width, image.height, image.bands) == (64, 64, 4))
    #expect(
      try image.pixel(x: 32, y: 32).map { UInt8($0) }
        == {
          let p = bitmap.pixel(x: 32, y: 32)
          return [p.red, p.green, p.blue, p.alpha]
        }())
  }
}

@Suite("All-or-nothing fills")
struct FillAtomicityTests {
  /// When one format's table refuses a write (every slot pinned), the entries the
  /// fill wrote for the family's other formats are removed, and the error says it once.
  @Test func aFailedWriteUndoesTheWholeFill() async throws {
    let formats = [
      try ImageFormat(
        name: "pair.a", family: "pair", width: 16, height: 16, maximumCount: 4, pipeline: "fill"),
      try ImageFormat(
        name: "pair.b", family: "pair", width: 8, height: 8, maximumCount: 1, pipeline: "fill"),
    ]
    let cache = try ImageCache(
      configuration: CacheConfiguration(
        directory: Photos.temporaryFolder(), formats: formats, device: .server))
    let first = try await cache.fill(entity("rocket.jpg"), family: "pair")
    let pinned = try #require(first["pair.b"])
    do {
      _ = try await cache.fill(entity("hubble.jpg"), family: "pair")
      Issue.record("the fill should have failed: pair.b's only slot is pinned")
    } catch {
      #expect(
        error
          == .fillUndone(
            entityID: "hubble.jpg", family: "pair", removed: ["pair.a"],
            error: .noFreeSlot(format: "pair.b", capacity: 1)))
      #expect(
        error.description
          == "hubble.jpg: nothing stored for family 'pair' (undid pair.a): format 'pair.b': all 1 "
          + "entries are in use by live bitmaps or writes; release bitmaps or raise maximumCount")
    }
    #expect(cache.cachedImage(for: entity("hubble.jpg"), format: "pair.a") == nil)
    #expect(cache.cachedImage(for: entity("hubble.jpg"), format: "pair.b") == nil)
    #expect(cache.cachedImage(for: entity("rocket.jpg"), format: "pair.a") != nil)
    #expect(cache.table(format: "pair.a")?.stats.entries == 1)
    withExtendedLifetime(pinned) {}
  }
}

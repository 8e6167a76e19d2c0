import Foundation
import ImageTables
import Locking
import Testing

@testable import ImageCaching

/// More concurrent fills than a table has slots: a fill that needs a slot while the
/// others are being written or held waits for one, or evicts the least recently used
/// entry nobody holds; none fails while fewer bitmaps are held than the table keeps.
@Suite("Eviction under concurrent fills")
struct EvictionUnderLoadTests {
  /// The bytes of each photo's entry in each format, from fills one at a time in a
  /// cache of their own: what every concurrent fill must have written.
  static func reference(_ formats: [ImageFormat], family: String, photos: [String]) async throws
    -> [String: [String: [UInt8]]]
  {
    let cache = try ImageCache(
      configuration: CacheConfiguration(
        directory: Photos.temporaryFolder(), formats: formats, workers: 1))
    var bytes: [String: [String: [UInt8]]] = [:]
    for photo in photos {
      let filled = try await cache.fill(entity(photo), family: family)
      bytes[photo] = filled.mapValues { Array($0.bytes) }
    }
    return bytes
  }

  /// 40 entities, prefetched at once into a family whose small format keeps 12 and
  /// large one 100, with the default workers: every fill succeeds, the large format
  /// holds all 40 and the small one its 12, each entry the photo's own pixels.
  @Test func prefetchingMoreEntitiesThanSlotsFailsNone() async throws {
    let formats = [
      try ImageFormat(
        name: "shot.small", family: "shot", width: 24, height: 24, maximumCount: 12,
        pipeline: "fill"),
      try ImageFormat(
        name: "shot.large", family: "shot", width: 64, height: 48, maximumCount: 100,
        pipeline: "fit"),
    ]
    let reference = try await Self.reference(formats, family: "shot", photos: Photos.names)
    let cache = try ImageCache(
      configuration: CacheConfiguration(directory: Photos.temporaryFolder(), formats: formats))
    let entities = (0..<40).map { index in
      Entity(
        id: "shot-\(index)", sourceVersion: "1",
        source: .file(Photos.bundled(Photos.names[index % Photos.names.count])))
    }
    let failures = Lock<[PrefetchFailure]>([])
    await cache.prefetch(entities, family: "shot") { failure in
      failures.withLock { $0.append(failure) }
    }.value
    #expect(failures.withLock { $0 }.map(\.description) == [])
    #expect(cache.statistics.failures == 0)
    #expect(cache.table(format: "shot.large")?.stats.entries == 40)
    #expect(cache.table(format: "shot.small")?.stats.entries == 12)
    for (index, item) in entities.enumerated() {
      let photo = Photos.names[index % Photos.names.count]
      let large = try #require(cache.cachedImage(for: item, format: "shot.large"), "\(item.id)")
      #expect(Array(large.bytes) == reference[photo]?["shot.large"], "\(item.id)")
      if let small = cache.cachedImage(for: item, format: "shot.small") {
        #expect(Array(small.bytes) == reference[photo]?["shot.small"], "\(item.id)")
      }
    }
  }

  /// 1,000 concurrent `image(for:)` calls into a format that keeps 50: each gets its
  /// entity's bitmap (the photo's own pixels), none fails, and the table keeps 50.
  @Test func aThousandConcurrentRequestsIntoFiftySlotsFailNone() async throws {
    let formats = [
      try ImageFormat(
        name: "tile", family: "tile", width: 8, height: 8, maximumCount: 50, pipeline: "fill")
    ]
    let photos = ["rocket.jpg", "hubble.jpg", "retina.jpg"]  // shrink-on-load: quick decodes
    let reference = try await Self.reference(formats, family: "tile", photos: photos)
    let cache = try ImageCache(
      configuration: CacheConfiguration(directory: Photos.temporaryFolder(), formats: formats))
    let outcomes = await withTaskGroup(of: String?.self) { group in
      for index in 0..<1000 {
        group.addTask {
          let photo = photos[index % photos.count]
          let item = Entity(
            id: "tile-\(index)", sourceVersion: "1", source: .file(Photos.bundled(photo)))
          do {
            let bitmap = try await cache.image(for: item, format: "tile")
            guard bitmap.entityID == item.id, Array(bitmap.bytes) == reference[photo]?["tile"]
            else { return "\(item.id): wrong pixels" }
            return nil
          } catch {
            return "\(error)"
          }
        }
      }
      var problems: [String] = []
      for await problem in group { if let problem { problems.append(problem) } }
      return problems
    }
    #expect(outcomes == [])
    #expect(cache.statistics.failures == 0)
    // Each entity is written at least once; one whose entry was evicted before its
    // request ran (the request waited that long for a thread) is filled again.
    #expect(cache.statistics.entriesWritten >= 1000)
    #expect(cache.table(format: "tile")?.stats.entries == 50)
  }

  /// A writer that finds the least recently used entry pinned keeps serving it and
  /// evicts the next one.
  @Test func aPinnedOldestEntryStaysServedAndTheNextGoes() async throws {
    let formats = [
      try ImageFormat(
        name: "tile", family: "tile", width: 8, height: 8, maximumCount: 3, pipeline: "fill")
    ]
    let cache = try ImageCache(
      configuration: CacheConfiguration(directory: Photos.temporaryFolder(), formats: formats))
    let names = ["rocket.jpg", "hubble.jpg", "retina.jpg", "coffee.png"]
    let held = try await cache.image(for: entity(names[0]), format: "tile")
    let before = Array(held.bytes)
    for name in names.dropFirst() { _ = try await cache.fill(entity(name), family: "tile") }
    #expect(cache.cachedImage(for: entity(names[0]), format: "tile") != nil)  // pinned: kept
    #expect(cache.cachedImage(for: entity(names[1]), format: "tile") == nil)  // the next went
    #expect(cache.contains(entity(names[2]), format: "tile"))
    #expect(cache.contains(entity(names[3]), format: "tile"))
    #expect(Array(held.bytes) == before)
  }
}

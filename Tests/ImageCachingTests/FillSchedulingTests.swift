import Foundation
import ImageProcessing
import ImageTables
import Locking
import TestFixtures
import Testing
import Vips

@testable import ImageCaching

/// A processor that notes every (entity, format) it runs for, in order, and holds the
/// worker thread of the entity `holding` (its first format) until ``release()``, so a test knows which
/// step a fill is at without guessing at times.
final class HoldingProbe: ImageProcessor, Sendable {
  var identifier: String { "holdingProbe@1" }
  let holding: String
  private let runs = Lock<[String]>([])
  private let arrival = Lock<(arrived: Bool, waiting: [CheckedContinuation<Void, Never>])>(
    (false, []))
  private let gate = DispatchSemaphore(value: 0)

  init(holding: String) { self.holding = holding }

  /// "entity format" for every run so far, in order.
  var log: [String] { runs.withLock { $0 } }

  /// Returns once the held entity's fill is in this processor, on its worker thread.
  func waitUntilHolding() async {
    await withCheckedContinuation { continuation in
      let arrived = arrival.withLock { state in
        if !state.arrived { state.waiting.append(continuation) }
        return state.arrived
      }
      if arrived { continuation.resume() }
    }
  }

  func release() { gate.signal() }

  func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
    runs.withLock { $0.append("\(context.entityID) \(context.formatName)") }
    guard context.entityID == holding else { return image }
    let (first, waiting) = arrival.withLock { state in
      defer { (state.arrived, state.waiting) = (true, []) }
      return (!state.arrived, state.waiting)
    }
    guard first else { return image }  // held once, in its first format
    for continuation in waiting { continuation.resume() }
    gate.wait()
    return image
  }
}

/// Fills on the cache's own workers: priorities decide what runs next, and
/// cancellation ends queued work at once and running work at its next step.
@Suite("Fill scheduling")
struct FillSchedulingTests {
  /// A family of two formats whose pipelines go through the probe; one worker.
  func probeCache(_ probe: HoldingProbe) throws -> ImageCache {
    let registry = ProcessorRegistry.withBuiltIns()
    try registry.register(
      ProcessorDefinition(name: "holdingProbe", summary: "A test probe.") { _ in probe })
    let formats = try ["first", "second"].map { name in
      try ImageFormat(
        name: "probe.\(name)", family: "probe", width: 16, height: 16, maximumCount: 20,
        pipeline: "fill | holdingProbe")
    }
    return try ImageCache(
      configuration: CacheConfiguration(
        directory: Photos.temporaryFolder(), formats: formats, registry: registry, workers: 1))
  }

  func item(_ id: String, _ photo: String = "rocket.jpg") -> Entity {
    Entity(id: id, sourceVersion: "1", source: .file(Photos.bundled(photo)))
  }

  /// Waits until `count` requests are queued behind the held fill (they merge or wait
  /// in the workers' queue; the statistics count each fill as it is asked for).
  func waitUntilAsked(_ cache: ImageCache, fills: Int) async throws {
    while cache.statistics.fills + cache.statistics.mergedRequests < fills {
      try await Task.sleep(for: .milliseconds(2))
    }
  }

  @Test(.timeLimit(.hangGuard)) func higherPriorityFillsRunFirst() async throws {
    let probe = HoldingProbe(holding: "held")
    let cache = try probeCache(probe)
    let held = Task { try await cache.fill(item("held"), family: "probe") }
    await probe.waitUntilHolding()
    // The only worker is busy: these queue, in this order.
    let low = Task { try await cache.fill(item("low"), family: "probe", priority: .low) }
    try await waitUntilAsked(cache, fills: 2)
    let normal = Task { try await cache.fill(item("normal"), family: "probe") }
    try await waitUntilAsked(cache, fills: 3)
    let visible = Task { try await cache.fill(item("visible"), family: "probe", priority: .high) }
    try await waitUntilAsked(cache, fills: 4)
    // A request of higher priority for the queued low fill raises it above `normal`.
    let raised = Task {
      try await cache.image(for: item("low"), format: "probe.first", priority: .veryHigh)
    }
    try await waitUntilAsked(cache, fills: 5)
    probe.release()
    for task in [held, low, normal, visible] { _ = try await task.value }
    _ = try await raised.value
    let order = probe.log.filter { $0.hasSuffix("probe.first") }.map { $0.split(separator: " ")[0] }
    #expect(order == ["held", "low", "visible", "normal"])
  }

  /// A fill still queued behind a busy worker, cancelled, ends at once: its waiter has
  /// the error while the worker is still held, and it never runs.
  @Test(.timeLimit(.hangGuard)) func aQueuedFillCancelledNeverRuns() async throws {
    let probe = HoldingProbe(holding: "held")
    let cache = try probeCache(probe)
    let held = Task { try await cache.fill(item("held"), family: "probe") }
    await probe.waitUntilHolding()
    let queued = Task { try await cache.fill(item("queued"), family: "probe") }
    try await waitUntilAsked(cache, fills: 2)
    queued.cancel()
    await #expect(throws: CacheError.cancelled(entityID: "queued")) { try await queued.value }
    // Withdrawn from the queue at once: counted as failed while the worker is still held
    // (work left queued would be counted only when it came up).
    let deadline = ContinuousClock.now + .seconds(5)
    while cache.statistics.failures == 0, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(2))
    }
    #expect(cache.statistics.failures == 1)
    probe.release()
    _ = try await held.value
    await cache.waitForFills()
    #expect(!probe.log.contains { $0.hasPrefix("queued ") })
    #expect(!cache.contains(item("queued"), format: "probe.first"))
    #expect(cache.statistics.failures == 1)
  }

  /// A running fill, cancelled while its first format's pipeline runs, stops before
  /// the next step: the second format's pipeline never runs and nothing is written.
  @Test(.timeLimit(.hangGuard)) func aRunningFillCancelledStopsAtItsNextStep() async throws {
    let probe = HoldingProbe(holding: "held")
    let cache = try probeCache(probe)
    let held = Task { try await cache.fill(item("held"), family: "probe") }
    await probe.waitUntilHolding()
    cache.cancel(item("held"), family: "probe")
    await #expect(throws: CacheError.cancelled(entityID: "held")) { try await held.value }
    probe.release()
    await cache.waitForFills()
    #expect(probe.log == ["held probe.first"])
    for format in ["probe.first", "probe.second"] {
      #expect(!cache.contains(item("held"), format: format))
    }
    #expect(cache.statistics.entriesWritten == 0 && cache.statistics.failures == 1)
  }

  /// Fills run on the cache's own threads, not on the task that asked.
  @Test func fillsRunOnTheCachesWorkerThreads() async throws {
    let probe = ThreadNameProbe()
    let registry = ProcessorRegistry.withBuiltIns()
    try registry.register(
      ProcessorDefinition(name: "threadName", summary: "Notes its thread.") { _ in probe })
    let format = try ImageFormat(
      name: "named", family: "named", width: 8, height: 8, maximumCount: 5,
      pipeline: "fill | threadName")
    let cache = try ImageCache(
      configuration: CacheConfiguration(
        directory: Photos.temporaryFolder(), formats: [format], registry: registry, workers: 2))
    for name in ["rocket.jpg", "hubble.jpg"] { try await cache.fill(entity(name), family: "named") }
    #expect(probe.names.count == 2, "\(probe.names)")
    #expect(
      probe.names.allSatisfy { $0 == "cache fill 1" || $0 == "cache fill 2" }, "\(probe.names)")
  }

  /// Cancelling a prefetch's task ends its queued fills, and that is not reported as a
  /// failure of each; a fill that failed on its own still is.
  @Test(.timeLimit(.hangGuard)) func aCancelledPrefetchReportsNoFailures() async throws {
    let probe = HoldingProbe(holding: "held")
    let cache = try probeCache(probe)
    let held = Task { try await cache.fill(item("held"), family: "probe") }
    await probe.waitUntilHolding()
    let failures = Lock<[PrefetchFailure]>([])
    let prefetch = cache.prefetch(
      ["a", "b", "c"].map { item($0) }, family: "probe"
    ) { failure in failures.withLock { $0.append(failure) } }
    try await waitUntilAsked(cache, fills: 4)
    prefetch.cancel()
    await prefetch.value
    probe.release()
    _ = try await held.value
    await cache.waitForFills()
    #expect(failures.withLock { $0 }.isEmpty)
    #expect(!probe.log.contains { $0.hasPrefix("a ") || $0.hasPrefix("b ") || $0.hasPrefix("c ") })
  }

  /// What could not be prefetched is reported, entity by entity, with its error.
  @Test func prefetchReportsEachFailure() async throws {
    let folder = try Photos.temporaryFolder()
    let broken = folder.appendingPathComponent("broken.jpg").path
    try Data("not an image".utf8).write(to: URL(fileURLWithPath: broken))
    let cache = try makeCache()
    let failures = Lock<[PrefetchFailure]>([])
    let good = entity("rocket.jpg")
    let bad = Entity(id: "broken", sourceVersion: "1", source: .file(broken))
    await cache.prefetch([good, bad], family: "avatar") { failure in
      failures.withLock { $0.append(failure) }
    }.value
    let reported = failures.withLock { $0 }
    #expect(reported.map(\.entity) == [bad])
    guard case .source(let entityID, let source, _)? = reported.first?.error else {
      Issue.record("expected a source error, got \(reported)")
      return
    }
    #expect(entityID == "broken" && source == broken)
    #expect(cache.contains(good, format: "avatar.small"))
    #expect(cache.statistics.failures == 1)
  }
}

/// Notes the name of the thread it runs on.
final class ThreadNameProbe: ImageProcessor, Sendable {
  private let seen = Lock<[String]>([])
  var identifier: String { "threadName@1" }
  var names: [String] { seen.withLock { $0 } }

  func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
    // The kernel's name of the thread (a cooperative thread's is "...default-qos").
    let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
    seen.withLock { $0.append(name.trimmingCharacters(in: .newlines)) }
    return image
  }
}

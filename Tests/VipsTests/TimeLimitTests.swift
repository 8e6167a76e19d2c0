import Foundation
import Locking
import TestFixtures
import Testing

import func CVips.vips_foreign_find_load_buffer

@testable import Vips

/// `Vips.withTimeLimit`: libvips's kill switch stops pixel work, and the steps before an
/// image exists run on a worker abandoned at the limit.
@Suite("Time limit")
struct TimeLimitTests {
  /// 100 bytes: a gzipped 10x10 SVG with 8 bytes after its gzip stream. libvips 8.14's
  /// SVG sniff (`vips_foreign_find_load`) loops for ever on it.
  static let hangingSVGZ = Fixtures.folder.appendingPathComponent("bad/gzip-then-bytes.svgz").path

  /// A 4000x4000 image whose gaussian blur of sigma 50 takes many seconds to compute.
  static func slowPipeline() throws -> VipsImage {
    let side = 4000
    let flat = try VipsImage(
      pixels: [UInt8](repeating: 90, count: side * side * 3), width: side, height: side, bands: 3)
    return try flat.blurred(sigma: 50).castToUInt8()
  }

  /// Seconds since `start`.
  static func seconds(since start: ContinuousClock.Instant) -> Double {
    Vips.seconds(ContinuousClock.now - start)
  }

  @Test("the kill switch stops a pipeline computed a strip at a time on this thread")
  func killSwitchStopsStripLoop() throws {
    let slow = try Self.slowPipeline()
    let start = ContinuousClock.now
    #expect(throws: VipsError.timedOut(source: "blur.png", seconds: 0.25)) {
      try Vips.withTimeLimit(.milliseconds(250), source: "blur.png", timedOut: { $0 }) {
        () throws(VipsError) in _ = try slow.computePixels(onThisThread: true)
      }
    }
    // A guard against a hang, not a timing: the whole blur takes far longer.
    #expect(Self.seconds(since: start) < 20)
  }

  @Test("the kill switch stops a pipeline libvips's threadpool computes, from its eval callback")
  func killSwitchStopsThreadpool() throws {
    let slow = try Self.slowPipeline()
    let start = ContinuousClock.now
    do throws(VipsError) {
      try Vips.withTimeLimit(.milliseconds(250), source: "blur.png", timedOut: { $0 }) {
        () throws(VipsError) in _ = try slow.computePixels()
      }
      Issue.record("the blur ran to its end")
    } catch {
      #expect(error == .timedOut(source: "blur.png", seconds: 0.25))
      #expect(
        error.description == "blur.png: took longer than 0.25 s to decode and process (the "
          + "time limit of one image); stopped")
    }
    #expect(Self.seconds(since: start) < 20)
  }

  /// A 16x16 entry of the whole blur: its first and only strip needs every pixel of the
  /// 4000x4000 blur, so a check between strips, or a kill of the entry's own image, would
  /// wait for all of it (minutes here). The watchdog kills the blur's inner images too.
  @Test(
    "the kill reaches work inside one request: a small entry of a whole-photo blur",
    arguments: [true, false])
  func killReachesWorkInsideOneRequest(onThisThread: Bool) throws {
    let small = try Self.slowPipeline().resizedByLibvips(scale: 16.0 / 4000)
    #expect(small.width == 16 && small.height == 16)
    let start = ContinuousClock.now
    #expect(throws: VipsError.timedOut(source: "blur.png", seconds: 0.25)) {
      try Vips.withTimeLimit(.milliseconds(250), source: "blur.png", timedOut: { $0 }) {
        () throws(VipsError) in _ = try small.computePixels(onThisThread: onThisThread)
      }
    }
    // A guard against waiting for the whole blur, not a timing.
    #expect(Self.seconds(since: start) < 20)
  }

  /// The kill flags a limit set are cleared when it ends: an image made before the limit
  /// (a caller's source) computes again afterwards.
  @Test("an image a limit killed computes again once the limit has ended")
  func killedImagesRunAgainAfterTheLimit() throws {
    let slow = try Self.slowPipeline()
    #expect(throws: VipsError.timedOut(source: "blur.png", seconds: 0.25)) {
      try Vips.withTimeLimit(.milliseconds(250), source: "blur.png", timedOut: { $0 }) {
        () throws(VipsError) in
        _ = try slow.resizedByLibvips(scale: 16.0 / 4000).computePixels(onThisThread: true)
      }
    }
    // A corner of the same blur, with no limit, equals that corner of a blur the limit
    // never saw.
    let corner = try slow.cropped(left: 0, top: 0, width: 8, height: 8)
    let reference = try Self.slowPipeline().cropped(left: 0, top: 0, width: 8, height: 8)
      .writePixels()
    #expect(reference.count == 8 * 8 * 3)
    // The buffer is kept while its bytes are copied: they are freed with it.
    let after = try corner.computePixels(onThisThread: true)
    #expect(withExtendedLifetime(after) { Array(after.bytes) } == reference)
    #expect(try corner.writePixels() == reference)
  }

  @Test("within its limit the same work gives the same pixels as without one")
  func withinTheLimitNothingChanges() throws {
    let image = try VipsImage(file: Fixtures.photo("chelsea.png")).blurred(sigma: 2).castToUInt8()
    let bounded = try Vips.withTimeLimit(.seconds(600), source: "chelsea.png", timedOut: { $0 }) {
      () throws(VipsError) in try image.computePixels(onThisThread: true)
    }
    let free = try image.computePixels(onThisThread: true)
    #expect(Array(bounded.bytes) == Array(free.bytes))
    #expect(Array(bounded.bytes) == (try image.writePixels()))
  }

  @Test("a step that blocks libvips before an image exists returns at the limit, on a worker")
  func workerIsAbandonedAtTheLimit() throws {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.hangingSVGZ)))
    try Vips.start()
    let start = ContinuousClock.now
    #expect(throws: VipsError.timedOut(source: Self.hangingSVGZ, seconds: 1)) {
      try Vips.withTimeLimit(.seconds(1), source: Self.hangingSVGZ, timedOut: { $0 }) {
        () throws(VipsError) in
        // libvips's own loader search, as InputCheck makes it, on bytes that hang it.
        try Vips.openBounded(source: Self.hangingSVGZ) { () throws(VipsError) -> Bool in
          bytes.withUnsafeBytes { vips_foreign_find_load_buffer($0.baseAddress, $0.count) } != nil
        }
      }
    }
    #expect(Self.seconds(since: start) < 20)
    // This thread goes on decoding while the abandoned worker still spins.
    let after = try VipsImage.decode(bytes: Fixtures.bytes("coffee.png"), name: "coffee.png") {
      _ in 1
    }
    #expect(after.image.width == 600 && after.image.height == 400)
  }

  @Test("past the cap on abandoned workers a step that needs one fails at once, not started")
  func abandonedWorkersAreCapped() throws {
    #expect(AbandonableWorker.shared.capacity == 4)
    let workers = AbandonableWorker(limit: 2)
    let release = DispatchSemaphore(value: 0)
    let started = Lock<[String]>([])
    // A step that blocks until released, as libvips's sniff of some bytes never returns.
    let blocking = { @Sendable (name: String) in
      { @Sendable () throws(VipsError) -> Bool in
        started.withLock { $0.append(name) }
        release.wait()
        return true
      }
    }
    for name in ["a.jpg", "b.jpg"] {
      #expect(throws: VipsError.timedOut(source: name, seconds: 0.05)) {
        try workers.run(within: 0.05, source: name, blocking(name))
      }
    }
    #expect(workers.outstanding == 2)
    do throws(VipsError) {
      _ = try workers.run(within: 5, source: "c.jpg", blocking("c.jpg"))
      Issue.record("a third worker was started past the cap")
    } catch {
      #expect(error == .tooManyAbandonedWorkers(source: "c.jpg", outstanding: 2))
      #expect(error.kind == .timedOut)
      #expect(
        error.description
          == "c.jpg: not started: 2 earlier images passed their time limit in a step libvips "
          + "cannot stop and are still running in it, the most allowed at once (each uses a "
          + "core until libvips returns); try it again once they end")
    }
    // Refused without a thread: its step never ran.
    #expect(started.withLock { $0 }.sorted() == ["a.jpg", "b.jpg"])
    // Once the abandoned steps return, their places are free again.
    release.signal()
    release.signal()
    let start = ContinuousClock.now
    while workers.outstanding > 0, Self.seconds(since: start) < 20 { usleep(1000) }
    #expect(workers.outstanding == 0)
    #expect(try workers.run(within: 5, source: "d.jpg") { () throws(VipsError) in true })
  }

  @Test("gzip data is refused before libvips sniffs it, by file and by bytes")
  func gzipIsRefusedBeforeTheSniff() throws {
    let path = Self.hangingSVGZ
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    // Under a limit, so that a sniff that hangs fails this test instead of hanging it.
    func opened(_ open: () throws(VipsError) -> Void) -> VipsError? {
      do {
        try Vips.withTimeLimit(.seconds(5), source: path, timedOut: { $0 }, open)
        return nil
      } catch { return error }
    }
    let gzip = "gzip-compressed data (an SVGZ drawing, or another compressed file)"
    #expect(
      opened { () throws(VipsError) in _ = try VipsImage(file: path) }
        == .blockedLoader(source: path, loader: "svgload", format: gzip))
    #expect(
      opened { () throws(VipsError) in
        _ = try VipsImage.decode(bytes: bytes, name: "upload.svgz") { _ in 1 }
      } == .blockedLoader(source: "upload.svgz", loader: "svgload", format: gzip))
    // Gzip data that is no drawing at all: libvips alone would call it not an image.
    let photo = try Data(contentsOf: URL(fileURLWithPath: Fixtures.photo("rocket.jpg")))
    let gzipped = [UInt8]([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03]) + photo.prefix(64)
    #expect(
      opened { () throws(VipsError) in
        _ = try VipsImage.decode(bytes: gzipped, name: "photo.gz") { _ in 1 }
      } == .blockedLoader(source: "photo.gz", loader: "svgload", format: gzip))
  }
}

import Foundation
import ImageTables
import PhotoModels
import TestFixtures
import Testing
import Vips

@testable import ImageToolCLI

/// A photo whose load reports `fraction` and then waits at its gate: loading, that far.
final class HalfwayPhoto: Photo {
  let fraction: Double
  let gate = Gate()
  let loading = PhotoLoading()
  let placeholderImage: Bitmap?

  init(fraction: Double) {
    self.fraction = fraction
    // A small mid-grey square: the page shows it, centred, while the photo loads.
    placeholderImage = Bitmap(width: 8, height: 8, style: .gray8) { canvas in
      canvas.bytes.initializeMemory(as: UInt8.self, repeating: 128)
    }
  }

  var underlyingImage: Bitmap? { loading.image }
  var loadProgress: Double { loading.progress }
  var isLoading: Bool { loading.isLoading }
  func events() -> AsyncStream<PhotoEvent> { loading.events() }
  func unloadUnderlyingImage() { loading.unload(owner: self) }
  func loadUnderlyingImage() {
    let (fraction, gate) = (fraction, gate)
    loading.load(owner: self) { progress in
      progress.report(fraction)
      await gate.pass()
      throw PhotoError.unloaded
    }
  }
}

/// A scrubber's thumbnails that are never ready.
@MainActor final class NoThumbnails: PhotoScrubberDataSource {
  func numberOfPhotos(in scrubber: PhotoScrubber) -> Int { 1 }
  func thumbnail(at index: Int, in scrubber: PhotoScrubber) -> Bitmap? { nil }
}

@Suite("imgtool browse: the current photo's progress", .timeLimit(.hangGuard))
struct BrowseProgressTests {
  @MainActor func draw(_ browser: PhotoBrowser) throws -> VipsImage {
    let thumbnails = NoThumbnails()
    let scrubber = PhotoScrubber(dataSource: thumbnails)
    scrubber.bounds = (320, BrowserFrame.scrubberHeight)
    scrubber.reloadData()
    return try BrowserFrame.draw(
      browser: browser, scrubber: scrubber, width: 320, pageHeight: 240)
  }

  @Test @MainActor func aLoadingPhotosBarIsFilledByItsFraction() async throws {
    let photo = HalfwayPhoto(fraction: 0.37)
    let browser = PhotoBrowser(photos: [photo])
    let events = photo.events()
    browser.show()
    await photo.gate.waitUntilArrived()  // it has reported 0.37 and waits
    #expect(browser.currentProgress == 0.37)
    let frame = try draw(browser)
    // Half the page wide, centred, 6 high, 24 above the page's bottom: x 80..<240, y 216..<222.
    let bar = BrowserFrame.progressBarFrame(width: 320, pageHeight: 240)
    #expect((bar.x, bar.y, bar.width, bar.height) == (80, 216, 160, 6))
    for y in [bar.y, bar.y + bar.height / 2, bar.y + bar.height - 1] {
      var white = 0
      for x in bar.x..<(bar.x + bar.width) {
        let pixel = try frame.pixel(x: x, y: y)
        if pixel == [255, 255, 255] {
          white += 1
          #expect(x < bar.x + white, "the filled part is one run from the left, at \(x), \(y)")
        } else {
          #expect(pixel == [90, 90, 90], "the track at \(x), \(y)")
        }
      }
      #expect(white == 59)  // 0.37 x 160 = 59.2
    }
    // Around the bar, the page's black ground; the placeholder stays centred above it.
    for (x, y) in [
      (bar.x - 1, bar.y + 2), (bar.x + bar.width, bar.y + 2), (bar.x + 10, bar.y - 1),
      (bar.x + 10, bar.y + bar.height),
    ] {
      #expect(try frame.pixel(x: x, y: y) == [0, 0, 0], "at \(x), \(y)")
    }
    #expect(try frame.pixel(x: 160, y: 120) == [128, 128, 128])

    // Once the load has ended there is no bar.
    photo.gate.open()
    for await event in events { if case .loadingDidEnd = event { break } }
    #expect(browser.currentProgress == nil)
    let after = try draw(browser)
    for x in [bar.x, bar.x + 58, bar.x + 100] {
      #expect(try after.pixel(x: x, y: bar.y + 2) == [0, 0, 0])
    }
  }

  @Test func theFilledWidthRoundsTheFraction() {
    #expect(BrowserFrame.filledWidth(0, barWidth: 160) == 0)
    #expect(BrowserFrame.filledWidth(0.37, barWidth: 160) == 59)
    #expect(BrowserFrame.filledWidth(0.5, barWidth: 383) == 192)
    #expect(BrowserFrame.filledWidth(1, barWidth: 160) == 160)
    #expect(BrowserFrame.filledWidth(1.5, barWidth: 160) == 160)
  }
}

// A hang guard, not a speed check: under ThreadSanitizer on a loaded 2-core CI machine an
// instrumented imgtool's download and render took over a minute once.
@Suite("imgtool browse --url", .timeLimit(.hangGuard))
struct BrowseURLTests {
  @Test func aFrameDrawnMidDownloadShowsItsProgressBar() async throws {
    let server = try await onOwnThread { try MisbehavingServer.start() }
    defer { Thread.detachNewThread(server.stop) }  // stop waits: not on the shared pool
    let work = try Paths.temporaryFolder()
    let output = work.appendingPathComponent("loading.png").path
    // rocket.jpg in 10 chunks a minute apart: the frame is drawn after the first.
    let url = server.url("slow.jpg?chunks=10&seconds=600").absoluteString
    let result = await runTool([
      "browse", "--cache", work.appendingPathComponent("cache").path, "--url", url,
      "--at-progress", "0.05", "--width", "320", "--out", output,
    ])
    #expect(result.status == 0, "\(result.err)")
    let line = try #require(result.out.first)
    let prefix = "\(output): 320x324, photo 1 of 1 (\(url)), loading: "
    #expect(line.hasPrefix(prefix) && line.hasSuffix(" of it downloaded"), "\(line)")
    let fraction = try #require(
      Double(line.dropFirst(prefix.count).dropLast(" of it downloaded".count)))
    // The first chunk is a tenth of the photo: 11253 of 112525 bytes.
    let size = try Fixtures.bytes("rocket.jpg").count
    #expect(fraction >= 0.05 && fraction <= Double((size + 9) / 10) / Double(size), "\(fraction)")
    let frame = try VipsImage(file: output)
    let bar = BrowserFrame.progressBarFrame(width: 320, pageHeight: 240)
    var white = 0
    for x in bar.x..<(bar.x + bar.width) {
      let pixel = try frame.pixel(x: x, y: bar.y + 3)
      if pixel == [255, 255, 255] { white += 1 } else { #expect(pixel == [90, 90, 90]) }
    }
    #expect(white == Int((fraction * 160).rounded()) && white > 0, "\(white) for \(fraction)")
  }

  @Test func withoutAtProgressTheFrameShowsTheLoadedPhoto() async throws {
    let server = try await onOwnThread { try MisbehavingServer.start() }
    defer { Thread.detachNewThread(server.stop) }  // stop waits: not on the shared pool
    let work = try Paths.temporaryFolder()
    let output = work.appendingPathComponent("loaded.png").path
    let url = server.url("photos/coffee.png").absoluteString
    let result = await runTool([
      "browse", "--cache", work.appendingPathComponent("cache").path, "--url", url,
      "--width", "320", "--out", output,
    ])
    #expect(result.status == 0, "\(result.err)")
    #expect(result.out == ["\(output): 320x324, photo 1 of 1 (\(url))"])
    // coffee.png (600x400) fitted in the 320x240 page: 320x213, from y 13 to 226.
    let frame = try VipsImage(file: output)
    #expect(try frame.pixel(x: 160, y: 5) == [0, 0, 0])
    #expect(try frame.pixel(x: 160, y: 230) == [0, 0, 0])
    #expect(try frame.pixel(x: 160, y: 120) != [0, 0, 0])
  }

  @Test func atProgressNeedsURLs() async throws {
    let result = await runTool([
      "browse", "--at-progress", "0.5", "--out", "/tmp/never.png",
    ])
    #expect(result.status != 0)
    #expect(
      result.err.contains {
        $0.contains("--at-progress") && $0.contains("only photos from --url load while browsing")
      }, "\(result.err)")
  }
}

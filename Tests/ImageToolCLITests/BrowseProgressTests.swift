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

@Suite("imgtool browse: the current photo's progress", .timeLimit(.minutes(1)))
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

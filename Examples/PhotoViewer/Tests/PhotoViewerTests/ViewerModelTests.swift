import Foundation
import ImageCaching
import ImageToolManifest
import PhotoModels
import Testing

@testable import PhotoViewer

/// The sample photos rendered into the built-in photo family, in a cache of its own.
/// A suite that calls it sets a `.timeLimit`.
@MainActor
func renderedSamples() async throws -> URL {
  let photos = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().appendingPathComponent("../../../Photos").standardized
  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("photo-viewer-tests-\(UUID().uuidString)")
  let entities = try FileManager.default.contentsOfDirectory(atPath: photos.path).sorted()
    .filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }
    .map { Entity(id: $0, sourceVersion: "1", source: .file(photos.path + "/" + $0)) }
  weak var writer: ImageCache?
  do {
    let cache = try ImageCache(
      configuration: .init(
        directory: directory, formats: Manifest.builtIn.formats(family: "photo")))
    writer = cache
    await cache.prefetch(entities, family: "photo").value
  }
  // The tables have one writer at a time: the viewer opens them once the render's
  // cache is gone (its last fill task lets go of it a moment after the prefetch ends).
  // No bound of its own: the suites that call this have a time limit.
  while writer != nil { try await Task.sleep(for: .milliseconds(10)) }
  return directory
}

@MainActor
@Suite(.timeLimit(.minutes(2))) struct ViewerModelTests {
  @Test func pagesAndScrubsTogether() async throws {
    let directory = try await renderedSamples()
    defer { try? FileManager.default.removeItem(at: directory) }
    let model = try ViewerModel(
      options: ViewerOptions(arguments: ["--cache", directory.path, "--family", "photo"]))
    var changes = 0
    model.didChange = { changes += 1 }
    model.start()
    model.resizeScrubber(width: 720)
    #expect(model.title == "1 of 5 - astronaut.png")
    #expect(model.scrubber.selectedPhotoIndex == 0)
    #expect(model.scrubber.selectionAnimation == nil)
    #expect(model.browser.loadedIndices == [0, 1])

    // Paging moves the selection with the model's animation, to the photo's frame.
    model.page(.next)
    #expect(model.title == "2 of 5 - chelsea.png")
    #expect(changes == 1)
    let animation = try #require(model.scrubber.selectionAnimation)
    #expect(animation.to == Rect(try #require(model.scrubber.selectionFrame)))
    #expect(animation.duration == 0.2)
    #expect(model.selectionMoves)
    #expect(model.browser.loadedIndices == [0, 1, 2])

    // A click at the right end of the strip: the touch mapping picks the last photo,
    // the browser follows through the delegate, and the selection jumps there.
    model.touchScrubber(atX: 715)
    #expect(model.title == "5 of 5 - rocket.jpg")
    #expect(model.browser.currentIndex == 4)
    #expect(model.scrubber.selectionAnimation == nil)
    #expect(changes == 2)
    #expect(model.browser.loadedIndices == [3, 4])

    // The middle of the strip is the middle of the container: photo 3 of 5.
    model.touchScrubber(atX: 360)
    #expect(model.title == "3 of 5 - coffee.png")

    model.page(.last)
    #expect(model.title == "5 of 5 - rocket.jpg")
    model.page(.next)
    #expect(model.title == "5 of 5 - rocket.jpg")
    #expect(changes == 4)
    model.page(.first)
    #expect(model.title == "1 of 5 - astronaut.png")
    #expect(model.scrubber.selectedPhotoIndex == 0)
  }

  @Test func aFamilyNotRenderedSaysHowToRenderIt() async throws {
    let directory = try await renderedSamples()
    defer { try? FileManager.default.removeItem(at: directory) }
    #expect {
      try ViewerModel(
        options: ViewerOptions(arguments: ["--cache", directory.path, "--family", "avatar"]))
    } throws: { error in
      (error as? ViewerError)?.description
        == "family 'avatar' in '\(directory.path)' holds no photos: render it first with "
        + "imgtool render --family avatar --cache \(directory.path) PHOTOS"
    }
  }
}

import Foundation
import ImageCaching
import ImageTables
import ImageToolManifest
import PhotoModels
import Testing

@testable import PhotoViewer

/// The sample photos as entities, in the viewer's order (their names, sorted).
func samplePhotos() throws -> [Entity] {
  let photos = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().appendingPathComponent("../../../Photos").standardized
  return try FileManager.default.contentsOfDirectory(atPath: photos.path).sorted()
    .filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }
    .map { Entity(id: $0, sourceVersion: "1", source: .file(photos.path + "/" + $0)) }
}

/// A writer of the built-in photo family in `directory`, as `imgtool render` is one.
func photoWriter(_ directory: URL) throws -> ImageCache {
  try ImageCache(
    configuration: .init(directory: directory, formats: Manifest.builtIn.formats(family: "photo")))
}

/// The sample photos rendered into the built-in photo family, in a cache of its own,
/// its writer closed. A suite that calls it sets a `.timeLimit`.
@MainActor
func renderedSamples() async throws -> URL {
  let directory = try scratchFolder()
  let writer = try photoWriter(directory)
  await writer.prefetch(try samplePhotos(), family: "photo").value
  writer.close()
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
    #expect(model.status == nil)
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

    // A touch right of the strip: the touch mapping picks the last photo, the browser
    // follows through the delegate, and the selection jumps there.
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

  @Test func theStripShowsThumbnailsAPersonCanSeeAndIgnoresItsBlankSpace() async throws {
    let directory = try await renderedSamples()
    defer { try? FileManager.default.removeItem(at: directory) }
    let model = try ViewerModel(options: ViewerOptions(arguments: ["--cache", directory.path]))
    model.start()
    model.resizeScrubber(width: 720)
    let layout = model.scrubber.layout
    #expect(layout.thumbnailWidth == 43)
    #expect(layout.thumbnailHeight == 32)
    // 104 is the least height that gives 32: Nimbus's 44 gave 13.
    #expect(
      ScrubberLayout(width: 720, height: ViewerModel.scrubberHeight - 1, numberOfPhotos: 5)
        .thumbnailHeight == 31)
    // Five thumbnails, one point apart in a one-point border, centred in 720: 221 wide
    // from x = 249.
    #expect(layout.containerFrame == Frame(x: 249, y: 35, width: 221, height: 34))
    for slot in model.scrubber.slots { #expect(slot.thumbnail != nil) }
    #expect(model.scrubberHit(x: 250, y: 50))
    #expect(model.scrubberHit(x: 469, y: 50))
    // The selection (86 x 64, over the first photo) reaches above and below the thumbnails.
    #expect(model.scrubberHit(x: 260, y: 25))
    #expect(!model.scrubberHit(x: 20, y: 50))
    #expect(!model.scrubberHit(x: 248, y: 50))
    #expect(!model.scrubberHit(x: 470, y: 50))
    #expect(!model.scrubberHit(x: 700, y: 50))
    #expect(!model.scrubberHit(x: 400, y: 5))
  }

  @Test func aViewerOpensBesideAWriterAndSeesItsPhotosLand() async throws {
    let directory = try scratchFolder()
    defer { try? FileManager.default.removeItem(at: directory) }
    let photos = try samplePhotos()
    let writer = try photoWriter(directory)
    defer { writer.close() }
    let first = photos.filter { ["astronaut.png", "rocket.jpg"].contains($0.id) }
    for photo in first { try await writer.fill(photo, family: "photo") }
    let files = listing(directory)

    // The writer is open: a viewer opens all the same, and a second one too.
    let model = try ViewerModel(options: ViewerOptions(arguments: ["--cache", directory.path]))
    let second = try ViewerModel(options: ViewerOptions(arguments: ["--cache", directory.path]))
    model.start()
    second.start()
    model.resizeScrubber(width: 720)
    #expect(model.title == "1 of 2 - astronaut.png")
    #expect(second.title == "1 of 2 - astronaut.png")
    model.page(.last)
    #expect(model.title == "2 of 2 - rocket.jpg")
    #expect(!model.refresh())

    // The writer commits the rest while both are open: they see each one at their next read.
    var changes = 0
    model.didChange = { changes += 1 }
    for photo in photos where !first.contains(photo) {
      try await writer.fill(photo, family: "photo")
    }
    #expect(model.refresh())
    #expect(changes == 1)
    // The photo shown stays the one shown; the counter counts the new ones.
    #expect(model.title == "5 of 5 - rocket.jpg")
    #expect(model.scrubber.numberOfPhotos == 5)
    #expect(model.scrubber.selectedPhotoIndex == 4)
    for slot in model.scrubber.slots { #expect(slot.thumbnail != nil) }
    #expect(model.currentImage != nil)
    #expect(second.refresh())
    #expect(second.title == "1 of 5 - astronaut.png")
    #expect(!model.refresh())
    // Neither viewer made a file in the cache (no lock, no table of its own).
    #expect(listing(directory) == files)
  }

  @Test func aRenderIntoTheCacheStartsWhileAViewerHasItOpen() async throws {
    let directory = try await renderedSamples()
    defer { try? FileManager.default.removeItem(at: directory) }
    let model = try ViewerModel(options: ViewerOptions(arguments: ["--cache", directory.path]))
    model.start()
    // A writer that found the viewer holding the lock would throw here.
    let writer = try photoWriter(directory)
    defer { writer.close() }
    let photos = try samplePhotos()
    try await writer.fill(photos[1], family: "photo", force: true)
    #expect(model.title == "1 of 5 - astronaut.png")
    #expect(model.currentImage != nil)
  }

  @Test func aFolderSourceWaitsForItsTablesAndCreatesNothing() async throws {
    let scratch = try scratchFolder()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let cache = scratch.appendingPathComponent("cache")
    let model = try ViewerModel(
      source: .folder(scratch, cache: cache), family: "photo", manifest: .builtIn)
    model.start()
    #expect(model.browser.numberOfPhotos == 0)
    #expect(model.title == "photo-viewer")
    #expect(model.status == "no photos of family 'photo' in \(cache.path) yet")
    #expect(!model.refresh())
    #expect(listing(scratch) == [])

    // The render makes the tables and commits a photo: the next read opens and shows it.
    let writer = try photoWriter(cache)
    defer { writer.close() }
    try await writer.fill(try samplePhotos()[0], family: "photo")
    #expect(model.refresh())
    #expect(model.title == "astronaut.png")
    #expect(model.status == nil)
    #expect(model.currentImage != nil)
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
    #expect(!listing(directory).contains { $0.hasPrefix("avatar") })
  }
}

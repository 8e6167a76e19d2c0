import Foundation
import ImageTables
import PhotoModels
import Testing
import Vips

@testable import ImageToolCLI

@Suite("imgtool browse and the gallery example")
struct BrowseCommandTests {
  /// A work folder and, in it, a cache with the bundled photos rendered into `photo`.
  static func renderedPhotoFamily() async throws -> (work: URL, cache: String) {
    let work = try Paths.temporaryFolder()
    let cache = work.appendingPathComponent("cache").path
    let rendered = await runTool([
      "render", "--family", "photo", "--cache", cache, "--quiet", Paths.bundledPhotos.path,
    ])
    #expect(rendered.status == 0, "\(rendered.err)")
    return (work, cache)
  }

  @Test func aFrameHasTheModelsLayout() async throws {
    let (work, cache) = try await Self.renderedPhotoFamily()
    let output = work.appendingPathComponent("frame.png").path
    let result = await runTool([
      "browse", "--cache", cache, "--index", "2", "--width", "320", "--out", output,
    ])
    #expect(result.status == 0, "\(result.err)")
    #expect(result.out == ["\(output): 320x324, photo 3 of 5 (coffee.png)"])
    let frame = try VipsImage(file: output)
    #expect((frame.width, frame.height) == (320, 240 + 40 + 44))
    // The scrubber's frames, from the model, in the frame's coordinates.
    let layout = ScrubberLayout(width: 320, height: 44, numberOfPhotos: 5)
    let top = 240 + 40
    let container = layout.containerFrame
    #expect(try frame.pixel(x: container.x - 3, y: top + container.y + 5) == [0, 0, 0])
    // The strip's one-pixel edge.
    #expect(try frame.pixel(x: container.x, y: top + container.y) == [40, 40, 44])
    // Slot 0 shows astronaut.png's thumbnail; it is drawn exactly where the model says.
    let thumbnail = try #require(
      ImageTableThumbnail.bitmap(cache: cache, format: "photo.thumb", entity: "astronaut.png"))
    let cell = try BrowserFrame.cell(
      thumbnail, width: layout.thumbnailWidth, height: layout.thumbnailHeight)
    let slot = layout.slotFrame(0)
    for (dx, dy) in [(0, 0), (slot.width - 1, slot.height - 1), (slot.width / 2, slot.height / 2)] {
      let drawn = try frame.pixel(x: container.x + slot.x + dx, y: top + container.y + slot.y + dy)
      let expected = try cell.pixel(x: dx, y: dy).prefix(3)
      #expect(zip(drawn, expected).allSatisfy { abs($0 - $1) <= 1 }, "slot 0 at (\(dx), \(dy))")
    }
    // The selection: photo 2, larger, with a white edge.
    let selection = layout.selectionFrame(forPhoto: 2)
    #expect(
      try frame.pixel(x: selection.x, y: top + selection.y + selection.height / 2) == [
        255, 255, 255,
      ])
    #expect(
      try frame.pixel(x: selection.x + selection.width - 1, y: top + selection.y + 3) == [
        255, 255, 255,
      ])
    #expect(
      try frame.pixel(x: selection.x + selection.width, y: top + selection.y - 1) == [0, 0, 0])
  }

  @Test func aFrameShowsTheSelectionPartWayThroughItsAnimation() async throws {
    let (work, cache) = try await Self.renderedPhotoFamily()
    let output = work.appendingPathComponent("moving.png").path
    let result = await runTool([
      "browse", "--cache", cache, "--index", "2", "--from", "0", "--elapsed", "0.05",
      "--width", "320", "--out", output,
    ])
    #expect(result.status == 0, "\(result.err)")
    // The scrubber's own animation: from photo 0's selection frame to photo 2's.
    let layout = ScrubberLayout(width: 320, height: 44, numberOfPhotos: 5)
    let animation = SelectionAnimation(
      from: Rect(layout.selectionFrame(forPhoto: 0)), to: Rect(layout.selectionFrame(forPhoto: 2)))
    let moving = animation.frame(atElapsed: 0.05).rounded
    #expect(moving.x == layout.selectionFrame(forPhoto: 0).x + 14)  // 38 x 0.378, ease-out
    #expect(
      result.out == [
        "\(output): 320x324, photo 3 of 5 (coffee.png), selection moving from photo 1: "
          + "0.05 s of 0.2 s, at x \(moving.x)"
      ])
    let frame = try VipsImage(file: output)
    let top = 240 + 40
    let middle = top + moving.y + moving.height / 2
    // The white edge is where the animation is at 0.05 s, not where it began or ends.
    #expect(try frame.pixel(x: moving.x, y: middle) == [255, 255, 255])
    #expect(try frame.pixel(x: moving.x + moving.width - 1, y: middle) == [255, 255, 255])
    #expect(try frame.pixel(x: layout.selectionFrame(forPhoto: 0).x, y: middle) != [255, 255, 255])
    let end = layout.selectionFrame(forPhoto: 2)
    #expect(try frame.pixel(x: end.x + end.width - 1, y: middle) != [255, 255, 255])
    // A photo to move from that the family does not hold is refused, as --index is.
    let past = await runTool([
      "browse", "--cache", cache, "--index", "2", "--from", "5", "--out", output,
    ])
    #expect(past.status != 0)
    #expect(
      past.err.joined().contains("--from")
        && past.err.joined().contains("holds 5 photos, so the index is from 0 to 4"),
      "\(past.err)")
  }

  @Test func elapsedMustBeSecondsFromZero() async throws {
    let result = await runTool(["browse", "--elapsed", "-1", "--out", "/tmp/never.png"])
    #expect(result.status != 0)
    #expect(
      result.err.joined().contains("--elapsed"), "\(result.err)")
    #expect(result.err.joined().contains("expected seconds from 0, such as 0.05"))
  }

  @Test func anEmptyFamilySaysToRenderFirst() async throws {
    let cache = try Paths.temporaryFolder().appendingPathComponent("cache").path
    let result = await runTool(["browse", "--cache", cache, "--out", "/tmp/never.png"])
    #expect(result.status == 1)
    #expect(
      result.err == [
        "imgtool: family 'photo' is not rendered in \(cache) (no table for 'photo.thumb'); "
          + "run 'imgtool render --family photo' first"
      ])
    // Browsing only reads: it created nothing.
    #expect(!FileManager.default.fileExists(atPath: cache))
  }

  @Test func theGalleryWritesOneFramePerPhoto() throws {
    let gallery = Paths.executable.deletingLastPathComponent().appendingPathComponent("Gallery")
    let output = try Paths.temporaryFolder().appendingPathComponent("frames")
    let process = Process()
    process.executableURL = gallery
    process.arguments = [Paths.bundledPhotos.path, output.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let printed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(printed.split(separator: "\n").count == 5)
    let frames = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
    #expect(frames == (0..<5).map { String(format: "frame-%02d.png", $0) })
    let last = try VipsImage(file: output.appendingPathComponent("frame-04.png").path)
    #expect((last.width, last.height) == (640, 480 + 40 + 44))
  }
}

/// An entry of a cache folder, read back for comparing.
enum ImageTableThumbnail {
  static func bitmap(cache: String, format: String, entity: String) -> Bitmap? {
    guard let table = try? ImageTable(existingTableAt: cache + "/\(format).table"),
      let entry = table.entries().first(where: { $0.entityID == entity })
    else { return nil }
    return table.bitmap(entityID: entry.entityID, sourceVersion: entry.sourceVersion)
  }
}

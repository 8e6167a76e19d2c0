import Foundation
import ImageCaching
import ImageTables
import ImageToolManifest
import Testing
import Vips

/// An app that reads what `imgtool render` wrote finds its entries through
/// `RenderedEntity` alone: the ids and source versions the render gives.
@Suite("Rendered entities")
struct RenderedEntityTests {
  @Test func anAppFindsTheEntriesTheBuiltImgtoolRendered() throws {
    let folder = try Paths.temporaryFolder()
    let photos = folder.appendingPathComponent("photos")
    let nested = photos.appendingPathComponent("trips/rome")
    let extra = folder.appendingPathComponent("extra")
    for made in [nested, extra] {
      try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
    }
    let files = [
      (Paths.bundled("rocket.jpg"), nested.appendingPathComponent("rocket.jpg")),
      (Paths.bundled("coffee.png"), photos.appendingPathComponent("coffee.png")),
      (Paths.bundled("hubble.jpg"), extra.appendingPathComponent("hubble.jpg")),
    ]
    for (from, to) in files { try FileManager.default.copyItem(atPath: from, toPath: to.path) }
    // A folder and a file given itself, as a user runs them, from the project's folder.
    for target in ["photos", "extra/hubble.jpg"] {
      let render = try runExecutable(
        ["render", "--family", "photo", "--cache", "cache", target], in: folder)
      #expect(render.status == 0, "\(render.err)")
    }
    let configuration = CacheConfiguration(
      directory: folder.appendingPathComponent("cache"),
      formats: Manifest.builtIn.formats(family: "photo"))
    var readOnly = configuration
    readOnly.readOnly = true
    let cache = try ImageCache(configuration: readOnly)
    let found = [
      try RenderedEntity.entity(file: files[0].1.path, relativeTo: photos.path),
      try RenderedEntity.entity(file: files[1].1.path, relativeTo: photos.path + "/"),
      try RenderedEntity.entity(file: files[2].1.path, relativeTo: nil),
    ]
    #expect(found.map(\.id) == ["trips/rome/rocket.jpg", "coffee.png", "hubble.jpg"])
    for entity in found {
      for format in ["photo.thumb", "photo.screen"] {
        let bitmap = try #require(cache.cachedImage(for: entity, format: format), "\(entity.id)")
        #expect(bitmap.entityID == entity.id)
        #expect(bitmap.sourceVersion == entity.sourceVersion)
      }
    }
    // What the app reads is what imgtool exports for the same id.
    let exportPath = folder.appendingPathComponent("thumb.png").path
    let export = try runExecutable(
      [
        "export", "--cache", "cache", "--format", "photo.thumb", "--entity",
        "trips/rome/rocket.jpg", exportPath,
      ], in: folder)
    #expect(export.status == 0, "\(export.err)")
    let exported = try VipsImage(file: exportPath)
    let thumb = try #require(cache.cachedImage(for: found[0], format: "photo.thumb"))
    #expect((exported.width, exported.height) == (thumb.width, thumb.height))
    for (x, y) in [(0, 0), (thumb.width / 2, thumb.height / 3), (thumb.width - 1, 7)] {
      let pixel = thumb.pixel(x: x, y: y)
      let wanted = try exported.pixel(x: x, y: y).prefix(3).map { UInt8($0) }
      #expect([pixel.red, pixel.green, pixel.blue] == wanted, "\(x),\(y)")
    }
    // A photo changed in place is a miss until it is rendered again.
    let handle = try FileHandle(forWritingTo: files[1].1)
    handle.seekToEndOfFile()
    handle.write(Data([0]))
    try handle.close()
    let changed = try RenderedEntity.entity(file: files[1].1.path, relativeTo: photos.path)
    #expect(changed.id == "coffee.png")
    #expect(changed.sourceVersion != found[1].sourceVersion)
    #expect(cache.cachedImage(for: changed, format: "photo.thumb") == nil)
  }

  @Test func idsFollowTheRendersRules() throws {
    #expect(RenderedEntity.id(file: "/p/photos/a/b.jpg", relativeTo: "/p/photos") == "a/b.jpg")
    #expect(
      RenderedEntity.id(file: "/p/photos/./a/../a/b.jpg", relativeTo: "/p/photos/") == "a/b.jpg")
    #expect(RenderedEntity.id(file: "/p/photos/a/b.jpg", relativeTo: nil) == "b.jpg")
    #expect(RenderedEntity.id(file: "/p/photoshop/b.jpg", relativeTo: "/p/photos") == nil)
    #expect(RenderedEntity.sourceVersion(of: [1, 2, 3]) == Checksum.hex([1, 2, 3]))
    #expect(
      throws: RenderedEntityError.outsideFolder(file: "/p/other/b.jpg", folder: "/p/photos")
    ) {
      try RenderedEntity.entity(file: "/p/other/b.jpg", relativeTo: "/p/photos")
    }
    #expect(
      RenderedEntityError.outsideFolder(file: "/p/other/b.jpg", folder: "/p/photos").description
        == "/p/other/b.jpg: not inside /p/photos, so it has no id relative to it; give the "
        + "folder the render was given, or nil for a file rendered by itself")
  }
}

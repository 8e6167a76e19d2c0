import Foundation
import ImageTables
import Testing

@testable import PhotoViewer

/// A scratch folder, removed when the test ends.
func scratchFolder() throws -> URL {
  let folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("photo-viewer-source-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  return ViewerSource.folderURL(folder.resolvingSymlinksInPath().path)
}

/// Every file under `folder`, relative, sorted.
func listing(_ folder: URL) -> [String] {
  (FileManager.default.subpaths(atPath: folder.path) ?? []).sorted()
}

@Suite struct ViewerSourceTests {
  func source(
    _ arguments: [String], environment: [String: String] = [:], note: (String) -> Void = { _ in }
  )
    throws -> ViewerSource
  {
    try ViewerSource.resolve(
      ViewerOptions(arguments: arguments), environment: environment,
      note: note)
  }

  @Test func aFolderGetsACacheOfItsOwnUnderXDGCacheHome() throws {
    let scratch = try scratchFolder()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let photos = ViewerSource.folderURL(scratch.appendingPathComponent("My Pictures").path)
    try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
    let hash = String(Checksum.hash(photos.path), radix: 16)
    let xdg = try source([photos.path], environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": "/h"])
    #expect(
      xdg
        == .folder(
          photos,
          cache: ViewerSource.folderURL("/x/cache/imgtool/photo-viewer/My_Pictures-\(hash)")))
    // Without it, or with a relative one (which the XDG spec says to ignore): ~/.cache.
    for environment in [["HOME": "/h"], ["XDG_CACHE_HOME": "rel", "HOME": "/h"]] {
      #expect(
        try source([photos.path], environment: environment).cache
          == ViewerSource.folderURL("/h/.cache/imgtool/photo-viewer/My_Pictures-\(hash)"))
    }
    // A folder of the same name elsewhere has a cache of its own.
    let other = scratch.appendingPathComponent("b/My Pictures")
    try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
    #expect(try source([other.path], environment: ["HOME": "/h"]).cache != xdg.cache)
  }

  @Test func aCacheInsideTheFolderIsRefused() throws {
    let photos = try scratchFolder()
    defer { try? FileManager.default.removeItem(at: photos) }
    for cache in [photos.path, photos.path + "/cache", photos.path + "/./sub/../cache"] {
      #expect {
        try source([photos.path, "--cache", cache])
      } throws: { error in
        (error as? ViewerError)?.description
          == "the cache '\(cache)' is inside the folder of photos '\(photos.path)': the viewer "
          + "never writes into a folder it is asked to read; give --cache a folder outside it, "
          + "or leave --cache out (the cache is then under $XDG_CACHE_HOME/imgtool)"
      }
    }
    #expect(listing(photos) == [])
  }

  @Test func aFolderOfPhotosIsNeverTheCacheARenderWritesInto() throws {
    let scratch = try scratchFolder()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let (photos, pictures) = (
      scratch.appendingPathComponent("a"), scratch.appendingPathComponent("p")
    )
    for folder in [photos, pictures] {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }
    try Data([1]).write(to: pictures.appendingPathComponent("cat.JPG"))
    #expect {
      try source([photos.path, "--cache", pictures.path])
    } throws: { error in
      (error as? ViewerError)?.description
        == "'\(pictures.path)' holds photos, not a cache's tables: the viewer never writes into "
        + "a folder of photos; to show them, open it as a folder: photo-viewer \(pictures.path)"
    }
  }

  @Test func aFolderOfPhotosGivenAsTheCacheIsOpenedAsTheFolderItIs() throws {
    let pictures = try scratchFolder()
    defer { try? FileManager.default.removeItem(at: pictures) }
    try Data([1]).write(to: pictures.appendingPathComponent("a.png"))
    var notes: [String] = []
    let opened = try source(
      ["--cache", pictures.path], environment: ["XDG_CACHE_HOME": "/x"]
    ) { notes.append($0) }
    let own = ViewerSource.defaultCache(folder: pictures, environment: ["XDG_CACHE_HOME": "/x"])
    #expect(opened == .folder(pictures, cache: own))
    #expect(
      notes == [
        "'\(pictures.path)' holds photos and no tables: opening it as a folder of photos, "
          + "rendered into \(own.path) (nothing is written into '\(pictures.path)')"
      ])
    #expect(listing(pictures) == ["a.png"])
  }

  @Test func aCacheWithTablesIsACache() throws {
    let cache = try scratchFolder()
    defer { try? FileManager.default.removeItem(at: cache) }
    // A photo beside the tables (someone saved an export there) does not make it a folder.
    for name in ["photo.thumb.table", "export.png"] {
      try Data([1]).write(to: cache.appendingPathComponent(name))
    }
    #expect(try source(["--cache", cache.path]) == .cache(cache))
  }

  @Test func missingFoldersSaySo() throws {
    #expect {
      try source(["/nonexistent/photos"])
    } throws: { error in
      (error as? ViewerError)?.description == "no folder of photos at '/nonexistent/photos'"
    }
    #expect {
      try source(["--cache", "/nonexistent/cache"])
    } throws: { error in
      (error as? ViewerError)?.description
        == "no cache at '/nonexistent/cache': render one first, e.g. imgtool render --family "
        + "photo --cache /nonexistent/cache PHOTOS, or open a folder of photos: photo-viewer PHOTOS"
    }
  }
}

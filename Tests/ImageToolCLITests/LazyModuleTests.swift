import Foundation
import ImageTables
import TestFixtures
import Testing

/// A render of JPEG and PNG files does not load libvips's HEIF and JPEG XL modules (their
/// libraries cost start-up time); a HEIC file in the folder still loads them and renders.
/// Each in a fresh `imgtool` process, watched with the dynamic loader's `LD_DEBUG=libs`.
@Suite("imgtool loads libvips's modules only for files that need them")
struct LazyModuleTests {
  func render(_ names: [String], notes: Bool = false) throws -> (
    result: (status: Int32, out: String, err: String, loaderLog: String), cache: String
  ) {
    let (folder, cache) = try copiedPhotos(names)
    if notes {  // what folders of photos also hold, which no loader reads
      for name in ["README.md", ".DS_Store", "notes"] {
        try Data("notes\n".utf8).write(to: folder.appendingPathComponent(name))
      }
    }
    let result = try runExecutableWatchingLibraries([
      "render", "--family", "avatar", "--quiet", "--cache", cache, folder.path,
    ])
    return (result, cache)
  }

  func entities(_ cache: String) throws -> Set<String> {
    Set(try ImageTable(existingTableAt: cache + "/avatar.small.table").entries().map(\.entityID))
  }

  @Test func jpegAndPNGRenderWithoutTheHEIFModule() throws {
    let (result, cache) = try render(["coffee.png", "rocket.jpg"], notes: true)
    #expect(result.status == 0, "\(result.err)")
    #expect(try entities(cache) == ["coffee.png", "rocket.jpg"])
    #expect(loadsLibvips(result.loaderLog))
    // No module at all: neither HEIF nor JPEG XL (libvips's modules folder is
    // .../vips-modules-8.14/).
    #expect(!result.loaderLog.contains("vips-modules-"))
  }

  @Test func aHEICFileLoadsItAndRenders() throws {
    let (result, cache) = try render(["chelsea.heic", "coffee.png"])
    #expect(result.status == 0, "\(result.err)")
    #expect(try entities(cache) == ["chelsea.heic", "coffee.png"])
    #expect(result.loaderLog.contains("vips-heif.so"))
    // Only the trusted modules: never the untrusted loaders' (blocked anyway).
    for untrusted in ["vips-magick.so", "vips-poppler.so", "vips-openslide.so"] {
      #expect(!result.loaderLog.contains(untrusted), "\(untrusted) was loaded")
    }
  }
}

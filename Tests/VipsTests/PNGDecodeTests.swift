import Foundation
import TestFixtures
import Testing

@testable import Vips

/// `PNGDecode.c`: a clean PNG decoded by libpng alone gives the pixels and the metadata
/// libvips's `pngload` gives for the same bytes; anything libpng warns about is left to
/// libvips.
@Suite("PNG decode by libpng")
struct PNGDecodeTests {
  /// Every PNG of PngSuite and of libpng's test images (every colour type and depth,
  /// palettes with and without transparency, interlaced, odd sizes, text, gamma and
  /// profile chunks, and their damaged files), and the PNG photos of the fixtures.
  static func pngs() throws -> [String] {
    let corpora = Fixtures.folder.appendingPathComponent("corpora")
    var paths: [String] = []
    for folder in ["pngsuite", "libpng"] {
      let root = corpora.appendingPathComponent(folder)
      guard let walk = FileManager.default.enumerator(atPath: root.path) else { continue }
      for case let relative as String in walk where relative.hasSuffix(".png") {
        paths.append(root.appendingPathComponent(relative).path)
      }
    }
    paths += try Fixture.photos.filter { $0.name.hasSuffix(".png") }.map { try $0.path() }
    return paths.sorted()
  }

  /// The PNG libvips's pngsave writes, with `options`, of a square RGB image of `pixels`.
  static func savedPNG(_ pixels: [UInt8], side: Int, options: String) throws -> [UInt8] {
    let folder = try Fixtures.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("saved.png").path
    try VipsImage(pixels: pixels, width: side, height: side, bands: 3)
      .save(to: path, options: options)
    return [UInt8](try Data(contentsOf: URL(filePath: path)))
  }

  static func libvipsLoad(_ bytes: [UInt8]) throws -> VipsImage {
    try VipsImage.loadedByLibvips(
      ByteBuffer(copying: bytes), options: "", failOn: FailOn.none.libvips,
      source: "reference.png"
    ).materialized()
  }

  @Test("every pixel and every metadata field of libvips's pngload, or libvips's own decode")
  func sameAsLibvips() throws {
    var decoded = 0
    var declined: [String] = []
    for path in try Self.pngs() {
      let bytes = [UInt8](try Data(contentsOf: URL(filePath: path)))
      // A file libvips's header read refuses never reaches a decode.
      guard let probe = try? VipsImage(bytes: bytes, name: path), probe.header.loader == "pngload"
      else { continue }
      guard
        let ours = try VipsImage.decodedByLibpng(
          ByteBuffer(copying: bytes), like: probe, source: path)
      else {
        declined.append(URL(filePath: path).lastPathComponent)
        continue
      }
      decoded += 1
      let theirs = try Self.libvipsLoad(bytes)
      try CodecDecodeChecks.expectSame(ours, as: theirs, path)
    }
    // Nearly every file of the corpora is clean; those libpng warns about are few.
    #expect(decoded >= 230, "decoded \(decoded); declined: \(declined)")
    #expect(declined.count <= 40, "declined: \(declined)")
  }

  /// PngSuite's corrupt files (named `x*`) and libpng's crashers: never decoded here.
  /// (`crashers/badadler.png` is no exception: libvips does not check Adler-32, nor does
  /// this decode, and the comparison above decodes it to libvips's pixels.)
  @Test("a file libpng warns about or refuses is left to libvips")
  func damageIsLeftToLibvips() throws {
    let corpora = Fixtures.folder.appendingPathComponent("corpora")
    var damaged = try FileManager.default.contentsOfDirectory(
      atPath: corpora.appendingPathComponent("pngsuite").path
    ).filter { $0.hasPrefix("x") && $0.hasSuffix(".png") }.map {
      corpora.appendingPathComponent("pngsuite/\($0)").path
    }
    damaged += try FileManager.default.contentsOfDirectory(
      atPath: corpora.appendingPathComponent("libpng/crashers").path
    ).filter { $0 != "badadler.png" }.map {
      corpora.appendingPathComponent("libpng/crashers/\($0)").path
    }
    // The fixtures' photo cut short, and with a byte of its image data changed (its CRC
    // then fails).
    let folder = try Fixtures.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let chelsea = try Fixtures.bytes("chelsea.png")
    let cut = folder.appendingPathComponent("cut.png")
    try Data(chelsea.prefix(chelsea.count * 2 / 3)).write(to: cut)
    var flipped = chelsea
    flipped[chelsea.count / 2] ^= 0x55
    let crc = folder.appendingPathComponent("crc.png")
    try Data(flipped).write(to: crc)
    damaged += [cut.path, crc.path]
    var tried: [String] = []
    for path in damaged {
      let bytes = [UInt8](try Data(contentsOf: URL(filePath: path)))
      guard let probe = try? VipsImage(bytes: bytes, name: path), probe.header.loader == "pngload"
      else { continue }
      tried.append(URL(filePath: path).lastPathComponent)
      #expect(
        try VipsImage.decodedByLibpng(ByteBuffer(copying: bytes), like: probe, source: path)
          == nil, "\(path)")
    }
    // Those whose header libvips reads; the rest are refused before any decode.
    #expect(
      tried.sorted() == [
        "badcrc.png", "crc.png", "cut.png", "empty_ancillary_chunks.png", "huge_IDAT.png",
        "xcsn0g01.png",
      ])
    // Through the whole decode: the cut photo is refused as before, in libvips's words.
    #expect(throws: VipsError.self) {
      try VipsImage.decode(bytes: Array(chelsea.prefix(chelsea.count * 2 / 3)), name: "cut.png") {
        _ in 1
      }
    }
  }

  @Test("the render's decode of a clean PNG is this decode, made sRGB after")
  func theRenderDecodesWithIt() throws {
    for name in ["chelsea.png", "coffee.png"] {
      let bytes = try Fixtures.bytes(name)
      let decoded = try VipsImage.decode(bytes: bytes, name: name) { _ in 4 }
      // libvips's sequential loader marks what it loads; this decode does not.
      #expect(decoded.image.metadataFields["vips-sequential"] == nil, "\(name)")
      #expect(try decoded.image.writePixels() == Self.libvipsLoad(bytes).toSRGB().writePixels())
    }
  }

  /// An interlaced PNG: libpng reads it whole in one call, which checks the limit after
  /// each row of each pass.
  @Test("the decode stops at this thread's time limit, inside an interlaced file's passes")
  func stopsAtTheTimeLimit() throws {
    let side = 3000
    let noise = Generated.noise(side: side, seed: 54321)
    let bytes = try Self.savedPNG(noise, side: side, options: "interlace,compression=1")
    let probe = try VipsImage(bytes: bytes, name: "noise.png")
    func decode() throws(VipsError) -> VipsImage? {
      try VipsImage.decodedByLibpng(ByteBuffer(copying: bytes), like: probe, source: "noise.png")
    }
    // Stopped inside the scans or passes, not after them.
    let decoded = try CodecDecodeChecks.expectStopsInside(source: "noise.png", decode)
    #expect(try decoded.writePixels() == noise)
  }
}

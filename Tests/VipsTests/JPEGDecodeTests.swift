import Foundation
import TestFixtures
import Testing

@testable import Vips

/// `JPEGDecode.c`: a clean JPEG decoded by libjpeg alone gives the pixels and the metadata
/// libvips's `jpegload` gives for the same bytes and shrink; anything libjpeg warns about
/// is left to libvips.
@Suite("JPEG decode by libjpeg")
struct JPEGDecodeTests {
  /// The JPEGs compared: every JPEG photo of the fixtures (CMYK with its Adobe marker,
  /// greyscale, progressive, ICC profiles, each EXIF orientation), the orientation
  /// corpus, and encodings libvips's saver makes of two photos (chroma not subsampled,
  /// restart markers, optimised Huffman tables, progressive 4:4:4, a size that is no
  /// multiple of a block, CMYK progressive, greyscale progressive).
  static func jpegs() throws -> [(name: String, bytes: [UInt8])] {
    var files: [String] = try Fixture.photos.filter { $0.name.hasSuffix(".jpg") }.map {
      try $0.path()
    }
    let corpus = Fixtures.folder.appendingPathComponent("corpora/exif-orientation")
    files += try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted()
      .filter { $0.hasSuffix(".jpg") }.map { corpus.appendingPathComponent($0).path }
    var jpegs = try files.map {
      (name: $0, bytes: [UInt8](try Data(contentsOf: URL(filePath: $0))))
    }
    let folder = try Fixtures.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let retina = try VipsImage(file: Fixtures.photo("retina.jpg"))
    let odd = try VipsImage(file: Fixtures.photo("rocket.jpg")).cropped(
      left: 3, top: 5, width: 333, height: 217)
    let cmyk = try VipsImage(file: Self.cmykPath())
    let made: [(String, VipsImage, String)] = [
      ("444.jpg", retina, "Q=90,subsample_mode=off"),
      ("420.jpg", retina, "Q=75,subsample_mode=on"),
      ("restarts.jpg", retina, "Q=85,restart_interval=3"),
      ("optimised.jpg", retina, "Q=92,optimize_coding,strip"),
      ("progressive-444.jpg", retina, "Q=85,interlace,subsample_mode=off"),
      ("progressive-scans.jpg", retina, "Q=80,interlace,optimize_scans"),
      ("odd-size.jpg", odd, "Q=90"),
      ("odd-size-progressive.jpg", odd, "Q=70,interlace"),
      ("cmyk-progressive.jpg", cmyk, "Q=90,interlace"),
      ("grey-progressive.jpg", try retina.toGreyscale(), "Q=90,interlace"),
    ]
    // libvips inverts a CMYK JPEG whether or not it has an Adobe marker (libvips's saver
    // always writes one): the fixture with its APP14 segment taken out.
    let adobe = try Self.withoutSegment(0xEE, from: Fixtures.bytes("coffee-cmyk.jpg"))
    jpegs.append((name: "cmyk-without-adobe-marker.jpg", bytes: adobe))
    // Junk between the last scan and the EOI marker: libvips never reads past the last
    // row, so neither warns.
    let hubble = try Fixtures.bytes("hubble.jpg")
    jpegs.append(
      (
        name: "junk-before-eoi.jpg",
        bytes: hubble.dropLast(2) + [0x00, 0x11, 0x22, 0x33, 0xFF, 0xD9]
      ))
    for (name, image, options) in made {
      let path = folder.appendingPathComponent(name).path
      try image.save(to: path, options: options)
      jpegs.append((name: name, bytes: [UInt8](try Data(contentsOf: URL(filePath: path)))))
    }
    return jpegs
  }

  static func cmykPath() throws -> String {
    try #require(Fixture.named("coffee-cmyk.jpg")).path()
  }

  /// `jpeg` without its first marker segment `marker` (before the first scan).
  static func withoutSegment(_ marker: UInt8, from jpeg: [UInt8]) throws -> [UInt8] {
    var at = 2
    while at + 3 < jpeg.count, jpeg[at] == 0xFF, jpeg[at + 1] != 0xDA {
      let end = at + 2 + (Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3]))
      if jpeg[at + 1] == marker { return Array(jpeg[..<at] + jpeg[end...]) }
      at = end
    }
    Issue.record("no segment \(marker)")
    return jpeg
  }

  /// libvips's own load of `bytes` shrunk by `factor`, in memory.
  static func libvipsLoad(_ bytes: [UInt8], factor: Int, failOn: FailOn = .warning) throws
    -> VipsImage
  {
    try VipsImage.loadedByLibvips(
      ByteBuffer(copying: bytes),
      options: ShrinkOnLoad.options(loader: "jpegload", factor: factor),
      failOn: failOn.libvips, source: "reference.jpg"
    ).materialized()
  }

  static func libjpegDecode(_ bytes: [UInt8], factor: Int) throws -> VipsImage? {
    let probe = try VipsImage(bytes: bytes, name: "probe.jpg")
    return try VipsImage.decodedByLibjpeg(
      ByteBuffer(copying: bytes), like: probe, shrunkBy: factor, source: "probe.jpg")
  }

  @Test("every pixel and every metadata field of libvips's jpegload, at each shrink")
  func sameAsLibvips() throws {
    let jpegs = try Self.jpegs()
    #expect(jpegs.count >= 25)
    for jpeg in jpegs {
      for factor in [1, 2, 4, 8] {
        let theirs = try Self.libvipsLoad(jpeg.bytes, factor: factor)
        guard let ours = try Self.libjpegDecode(jpeg.bytes, factor: factor) else {
          Issue.record("\(jpeg.name) at 1/\(factor): declined, though libvips reads it clean")
          continue
        }
        try CodecDecodeChecks.expectSame(ours, as: theirs, "\(jpeg.name) at 1/\(factor)")
      }
    }
  }

  @Test("the metadata compared holds what the render reads: a profile, an orientation, CMYK")
  func theComparedFieldsAreThere() throws {
    let rocket = try #require(try Self.libjpegDecode(Fixtures.bytes("rocket.jpg"), factor: 2))
    #expect(rocket.hasICCProfile)
    // 640x427 halved: libvips's sizes round down, libjpeg's up (214).
    #expect(rocket.width == 320 && rocket.height == 213)
    let turnedPath = try #require(Fixture.named("chelsea-exif6.jpg")).path()
    let turned = try Self.libjpegDecode(
      [UInt8](try Data(contentsOf: URL(filePath: turnedPath))), factor: 1)
    #expect(turned?.metadataFields["orientation"] == "6")
    let cmyk = try #require(
      try Self.libjpegDecode(
        [UInt8](try Data(contentsOf: URL(filePath: Self.cmykPath()))),
        factor: 1))
    #expect(cmyk.interpretation == Interpretation.cmyk && cmyk.bands == 4)
  }

  /// Each damage libjpeg warns about: the decode declines, and the decode a render runs
  /// gives libvips's verdict (refused, or decoded by libvips as before).
  @Test("a file libjpeg warns about is left to libvips")
  func damageIsLeftToLibvips() throws {
    let folder = try Fixtures.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let damaged = [
      try Generated.truncatedJPEG(in: folder),
      try Generated.jpegWithoutEndMarker(in: folder),
      try Generated.jpegWithStrayMarker(in: folder),
      try Generated.jpegWithExtraneousBytes(in: folder),
      try Generated.jpegCutWithEndMarker("retina.jpg", in: folder),
      Fixtures.folder.appendingPathComponent("bad/progressive-8000x8000-cut.jpg").path,
    ]
    for path in damaged {
      let bytes = [UInt8](try Data(contentsOf: URL(filePath: path)))
      for factor in [1, 8] {
        #expect(try Self.libjpegDecode(bytes, factor: factor) == nil, "\(path) at 1/\(factor)")
      }
    }
    // Through the whole decode: the stray marker is refused at the default level and
    // decoded by libvips when anything goes, grey rows and all.
    let stray = [UInt8](try Data(contentsOf: URL(filePath: damaged[2])))
    #expect(throws: VipsError.self) {
      try VipsImage.decode(bytes: stray, name: "stray.jpg") { _ in 1 }
    }
    let anything = try VipsImage.decode(bytes: stray, name: "stray.jpg", failOn: .none) { _ in 1 }
    #expect(anything.image.metadataFields["vips-sequential"] == "1")
    #expect(
      try anything.image.writePixels()
        == Self.libvipsLoad(stray, factor: 1, failOn: .none).writePixels())
  }

  /// A JPEG 2049 pixels wide and 3 high, decoded for a box 16 pixels wide (what `imgtool
  /// info` decodes to check a file): the shrink asked for is 128, but shrunk by 8 on load
  /// it would have no rows, and libvips 8.14's jpegload then aborts the process. The
  /// factor stops at 2, the largest that keeps a row.
  @Test("a shrink-on-load never leaves an image without rows")
  func aThinPhotoKeepsItsRows() throws {
    let folder = try Fixtures.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    for (width, height, factor) in [(2049, 3, 2), (3, 2049, 2), (2049, 1, 1), (4000, 9, 8)] {
      let path = folder.appendingPathComponent("thin-\(width)x\(height).jpg").path
      try VipsImage(
        pixels: [UInt8](repeating: 90, count: width * height * 3), width: width, height: height,
        bands: 3
      ).save(to: path, options: "Q=90")
      let bytes = [UInt8](try Data(contentsOf: URL(filePath: path)))
      let decoded = try VipsImage.decode(bytes: bytes, name: path) { header in
        Double(max(header.displayWidth, header.displayHeight)) / 16
      }
      #expect(decoded.shrunkBy == factor, "\(width)x\(height)")
      #expect(
        (decoded.image.width, decoded.image.height) == (width / factor, height / factor),
        "\(width)x\(height)")
      #expect(
        try decoded.image.writePixels() == Self.libvipsLoad(bytes, factor: factor).writePixels())
    }
  }

  /// libjpeg-turbo reads a bad Huffman code as zero without a warning while its buffer
  /// holds enough bytes: handed the whole file at once, a damaged scan decodes here that
  /// libvips (which hands it 4 KB at a time) warns about, and `--fail-on warning` would
  /// pass it (found by differential testing of 385 inputs against the build before). Five bytes of each of 96 copies
  /// of hubble.jpg's scan set to values from a fixed generator: declined exactly when
  /// libvips's own decode warns, and libvips's pixels when not.
  @Test("a damaged scan is declined exactly when libvips warns about it")
  func damagedScansAsLibvips() throws {
    let hubble = try Fixtures.bytes("hubble.jpg")
    let scan = try #require(hubble.indices.first { hubble[$0] == 0xFF && hubble[$0 + 1] == 0xDA })
    var state: UInt32 = 2024
    func next(_ bound: Int) -> Int {
      state = state &* 1_664_525 &+ 1_013_904_223
      return Int(state >> 8) % bound
    }
    var declined = 0
    for copy in 0..<96 {
      var bytes = hubble
      for _ in 0..<5 {
        let at = scan + 20 + next(hubble.count - scan - 24)
        bytes[at] = UInt8(truncatingIfNeeded: next(256))
      }
      // libvips's decode on this thread, taking anything, and the warnings it raised.
      let (theirs, warnings) = try WarningLog.onThisThread { () throws(VipsError) in
        try VipsImage.loadedByLibvips(
          ByteBuffer(copying: bytes), options: "", failOn: FailOn.none.libvips,
          source: "damaged.jpg"
        ).materializedOnThisThread()
      }
      let ours = try Self.libjpegDecode(bytes, factor: 1)
      #expect(
        (ours == nil) == !warnings.isEmpty,
        "copy \(copy): decoded here \(ours != nil); libvips warned \(warnings)")
      if let ours {
        #expect(try ours.writePixels() == theirs.writePixels(), "copy \(copy)")
      } else {
        declined += 1
      }
    }
    // Some copies are declined, the rest decode: with the whole file in one buffer
    // (libjpeg's jpeg_mem_src) copies 48, 55 and 86 decoded here though libvips warned.
    #expect(declined > 0 && declined < 96)
  }

  @Test(
    "the render's decode of a clean JPEG is this decode, turned and made sRGB after",
    arguments: ["hubble.jpg", "rocket.jpg", "chelsea-exif6.jpg", "coffee-cmyk.jpg"])
  func theRenderDecodesWithIt(_ name: String) throws {
    let bytes = [UInt8](try Data(contentsOf: URL(filePath: Fixtures.path(name))))
    let decoded = try VipsImage.decode(bytes: bytes, name: name) { _ in 4 }
    // libvips's sequential loader marks what it loads; this decode does not.
    #expect(decoded.image.metadataFields["vips-sequential"] == nil)
    var reference = try Self.libvipsLoad(bytes, factor: decoded.shrunkBy)
    if reference.metadataFields["orientation"] != "1" {
      reference = try reference.autorotated()
    }
    #expect(try decoded.image.writePixels() == reference.toSRGB().writePixels())
  }

  /// A large progressive JPEG: libjpeg reads all its scans before the first row, and
  /// its progress monitor is where the limit is checked.
  @Test("the decode stops at this thread's time limit, inside a progressive file's scans")
  func stopsAtTheTimeLimit() throws {
    let side = 3000
    let noise = Generated.noise(side: side, seed: 12345)
    let image = try VipsImage(pixels: noise, width: side, height: side, bands: 3)
    let folder = try Fixtures.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("noise.jpg").path
    try image.save(to: path, options: "Q=98,interlace,subsample_mode=off")
    let bytes = [UInt8](try Data(contentsOf: URL(filePath: path)))
    let probe = try VipsImage(bytes: bytes, name: "noise.jpg")
    func decode() throws(VipsError) -> VipsImage? {
      try VipsImage.decodedByLibjpeg(
        ByteBuffer(copying: bytes), like: probe, shrunkBy: 1, source: "noise.jpg")
    }
    // Stopped inside the scans or passes, not after them.
    let decoded = try CodecDecodeChecks.expectStopsInside(source: "noise.jpg", decode)
    #expect(decoded.width == side && decoded.height == side)
  }
}

import Dispatch
import Foundation
import TestFixtures
import Testing

@testable import Vips

/// The shim's in-process ICC transform (`ColourTransform.c`) against libvips's own
/// `vips_icc_transform`: the same bytes for every profile it takes, libvips's answer for
/// every image it declines, and one lcms transform per profile however many images use it.
@Suite("ICC transform in process")
struct ICCTransformTests {
  /// Expects the in-process result and libvips's to be the same image, byte for byte.
  static func expectSame(_ ours: VipsImage, _ theirs: VipsImage, _ label: String) throws {
    #expect(
      (ours.width, ours.height, ours.bands) == (theirs.width, theirs.height, theirs.bands),
      "\(label): \(ours.width)x\(ours.height)x\(ours.bands) against \(theirs.width)x\(theirs.height)x\(theirs.bands)"
    )
    #expect(ours.interpretation == theirs.interpretation, "\(label)")
    #expect(ours.format == theirs.format, "\(label)")
    #expect(!ours.hasICCProfile && !theirs.hasICCProfile, "\(label): a profile is left")
    expectSameSamples(try ours.writePixels(), try theirs.writePixels(), label)
  }

  /// Runs both transforms on `make()`'s image (made twice: a file opened for one pass is
  /// read once by each) and expects the in-process one to take it and match.
  static func expectTakenAndSame(_ label: String, _ make: () throws -> VipsImage) throws {
    let inProcess = try make().iccTransformedToSRGBInProcess()
    #expect(inProcess != nil, "\(label): the in-process transform declined")
    guard let inProcess else { return }
    try expectSame(inProcess, make().iccTransformedToSRGBByLibvips(), label)
  }

  /// ``expectTakenAndSame(_:_:)`` for each image with `profile` embedded.
  static func expectEachTakenAndSame(
    _ images: [(String, VipsImage)], profile: [UInt8], _ context: String
  ) throws {
    for (label, image) in images {
      try expectTakenAndSame("\(label), \(context)") { try image.embeddingICCProfile(profile) }
    }
  }

  /// A profile of its own for one test: libvips's built-in Display P3 with the creation
  /// date (header bytes 24-35, which lcms does not read for a transform) set to `stamp`,
  /// so that no other test shares its cache entry.
  static func uniqueProfile(_ stamp: UInt8) throws -> [UInt8] {
    var profile = try VipsImage.builtInICCProfile("p3")
    for i in 24..<36 { profile[i] = stamp &+ UInt8(i) }
    return profile
  }

  static let photosWithProfiles = Fixture.photos.filter {
    (try? VipsImage(file: $0.path()).hasICCProfile) == true
  }

  @Test("the fixtures with a profile are the expected ones")
  func fixturesWithProfiles() {
    let names = Set(Self.photosWithProfiles.map(\.name))
    // The made ones with alpha or 16 bits lose theirs: the tests below embed one.
    #expect(names == ["astronaut.png", "chelsea.png", "hubble.jpg", "rocket.jpg", "hubble.tif"])
  }

  @Test(
    "every fixture with an 8-bit profile: taken, the same bytes as libvips",
    arguments: photosWithProfiles)
  func fixturesSameAsLibvips(_ fixture: Fixture) throws {
    let path = try fixture.path()
    let probe = try VipsImage(file: path)
    guard probe.format == .uchar, probe.bands - (probe.hasAlpha ? 1 : 0) >= 3 else {
      // 16-bit, or grey with an RGB profile: the declined cases below.
      #expect(try probe.iccTransformedToSRGBInProcess() == nil, "\(fixture)")
      return
    }
    try Self.expectTakenAndSame(fixture.name) { try VipsImage(file: path) }
    // And from memory, as a decode rotated by its EXIF orientation reaches it.
    let inMemory = try VipsImage(file: path).materialized()
    try Self.expectTakenAndSame("\(fixture) in memory") { inMemory }
  }

  @Test("libvips's built-in CMYK, Display P3 and sRGB profiles, with and without alpha")
  func builtInProfiles() throws {
    let cmyk = try VipsImage(file: Fixtures.path("coffee-cmyk.jpg")).materialized()
    #expect(cmyk.interpretation == .cmyk && cmyk.bands == 4)
    let cmykProfile = try VipsImage.builtInICCProfile("cmyk")
    try Self.expectTakenAndSame("CMYK") { try cmyk.embeddingICCProfile(cmykProfile) }
    // CMYK with a fifth band: the first four through the profile, the fifth kept.
    let cmykAlpha = try cmyk.joiningBands(cmyk.extractingBands(2)).tagged(as: .cmyk)
      .materialized()
    try Self.expectTakenAndSame("CMYK and alpha") {
      try cmykAlpha.embeddingICCProfile(cmykProfile)
    }

    let chelsea = try VipsImage(file: Fixtures.photo("chelsea.png")).materialized()
    let rgba = try VipsImage(file: Fixtures.path("chelsea-roundmask-alpha.png")).materialized()
    #expect(rgba.bands == 4 && rgba.hasAlpha)
    let chelseaProfile = try #require(chelsea.iccProfile)
    try Self.expectTakenAndSame("chelsea's own with alpha") {
      try rgba.embeddingICCProfile(chelseaProfile)
    }
    for name in ["p3", "srgb"] {
      let profile = try VipsImage.builtInICCProfile(name)
      try Self.expectTakenAndSame(name) { try chelsea.embeddingICCProfile(profile) }
      try Self.expectTakenAndSame("\(name) with alpha") { try rgba.embeddingICCProfile(profile) }
    }
  }

  /// Every 8-bit RGB colour once: 4096 x 4096 pixels, red the high byte of the row.
  static func everyColour() throws -> VipsImage {
    let side = 4096
    let pixels = [UInt8](unsafeUninitializedCapacity: side * side * 3) { buffer, count in
      for index in 0..<(side * side) {
        buffer[3 * index] = UInt8(truncatingIfNeeded: index >> 16)
        buffer[3 * index + 1] = UInt8(truncatingIfNeeded: index >> 8)
        buffer[3 * index + 2] = UInt8(truncatingIfNeeded: index)
      }
      count = side * side * 3
    }
    return try VipsImage(pixels: pixels, width: side, height: side, bands: 3).materialized()
  }

  /// The in-process transform of RGB matrix-shaper profiles computes lcms's optimised
  /// tables itself (MatrixShaper.c): the same bytes as libvips for every 8-bit colour,
  /// through the first shaper, the fixed-point matrix and the second shaper (Display P3,
  /// Adobe RGB, the fixtures' sRGB) and through the joined curves lcms makes when the
  /// matrices cancel (libvips's own sRGB); and each of the last two with a curve of its
  /// own per channel, so that no channel can take another's.
  /// `profile` with its green and blue tone curves replaced by gammas of their own (1.8
  /// and 2.6), red's kept: three curves that differ, as a scanner's or a camera's profile
  /// may have (every other profile here has one curve for all three). The new `curv` tags
  /// go at the end; the profile ID (an MD5 that lcms does not check) is cleared.
  static func curvePerChannel(_ profile: [UInt8]) throws -> [UInt8] {
    func number(_ at: Int) -> Int {
      profile[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
    }
    var bytes = profile
    while bytes.count % 4 != 0 { bytes.append(0) }
    func put(_ value: Int, at: Int) {
      for k in 0..<4 { bytes[at + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * k)) }
    }
    let entries = (0..<number(128)).map { 132 + 12 * $0 }
    for (signature, gamma) in [("gTRC", 0x01CD), ("bTRC", 0x029A)] {
      let entry = try #require(
        entries.first { String(decoding: profile[$0..<($0 + 4)], as: UTF8.self) == signature },
        "\(signature) in the profile")
      let offset = bytes.count
      bytes += Array("curv".utf8) + [0, 0, 0, 0, 0, 0, 0, 1]
      bytes += [UInt8(gamma >> 8), UInt8(gamma & 0xFF), 0, 0]
      put(offset, at: entry + 4)
      put(14, at: entry + 8)
    }
    put(bytes.count, at: 0)
    for i in 84..<100 { bytes[i] = 0 }
    return bytes
  }

  @Test(
    "every 8-bit colour through each RGB matrix-shaper profile: libvips's bytes",
    arguments: [
      "hubble.jpg", "rocket.jpg", "p3", "srgb", "p3 curve per channel",
      "srgb curve per channel",
    ])
  func everyColourSameAsLibvips(_ source: String) async throws {
    try await ComputeExecutor.run {
      let builtIn = String(source.prefix { $0 != " " })
      let profile =
        source.hasSuffix(".jpg")
        ? try #require(try VipsImage(file: Fixtures.photo(source)).iccProfile)
        : source.hasSuffix("per channel")
          ? try Self.curvePerChannel(VipsImage.builtInICCProfile(builtIn))
          : try VipsImage.builtInICCProfile(source)
      let image = try Self.everyColour().embeddingICCProfile(profile)
      try Self.expectTakenAndSame("every colour through \(source)'s profile") { image }
    }
  }

  /// The matrix-shaper row runs eight pixels at a time with AVX2 where the processor has
  /// it (MatrixShaper.c), the scalar loop for the rest of a row and otherwise: every colour
  /// through both, with three bands and with an alpha band carried along (its own values,
  /// every byte), and rows of every length from 1 to 24 (the vector loop's ends).
  @Test(
    "every 8-bit colour through a matrix shaper, vector and scalar, with alpha and odd rows",
    arguments: [false, true])
  func everyColourBothPaths(scalar: Bool) async throws {
    try await ComputeExecutor.run {
      let profile = try #require(try VipsImage(file: Fixtures.photo("rocket.jpg")).iccProfile)
      let colours = try Self.everyColour()
      let alpha = try VipsImage(
        pixels: (0..<(4096 * 4096)).map { UInt8(truncatingIfNeeded: $0 &* 7 >> 3) },
        width: 4096, height: 4096, bands: 1)
      let withAlpha = try colours.joiningBands(alpha).materialized()
      let narrow = try (1...24).map { width in
        try colours.cropped(left: 4096 - width - 3, top: 17 * width, width: width, height: 2)
          .materialized()
      }
      func check() throws {
        try Self.expectEachTakenAndSame(
          [("every colour", colours), ("every colour with alpha", withAlpha)]
            + narrow.map { ("a row of \($0.width)", $0) }, profile: profile,
          "scalar \(scalar)")
      }
      try KernelPaths.run(scalar: scalar, check)
    }
  }

  /// CMYK profiles go through lcms's 17-point grid computed node by node (CMYKGrid.c),
  /// eight pixels at a time with AVX2 where the processor has it and one at a time for
  /// the rest of a row and otherwise: libvips's bytes from both on every grid level (each
  /// node, on it and either side of it) and on random values, with a fifth band carried
  /// along, and in rows of every length from 1 to 17 (the vector loop's ends).
  @Test(
    "CMYK through the built-in CMYK profile, vector and scalar: libvips's bytes on the grid and off it",
    arguments: [false, true])
  func cmykGridSameAsLibvips(scalar: Bool) async throws {
    try await ComputeExecutor.run {
      let pixels = Self.cmykSamples()
      let count = pixels.count / 4
      let cmyk = try VipsImage(pixels: pixels, width: 1024, height: count / 1024, bands: 4)
        .tagged(as: .cmyk).materialized()
      let profile = try VipsImage.builtInICCProfile("cmyk")
      let withFifth = try cmyk.joiningBands(cmyk.extractingBands(1)).tagged(as: .cmyk)
        .materialized()
      let narrow = try (1...17).map { width in
        try withFifth.cropped(left: 5, top: 31 * width, width: width, height: 2).materialized()
      }
      try KernelPaths.run(scalar: scalar) {
        try Self.expectEachTakenAndSame(
          [("CMYK samples", cmyk), ("CMYK samples with a fifth band", withFifth)]
            + narrow.map { ("a row of \($0.width) with a fifth band", $0) }, profile: profile,
          "scalar \(scalar)")
      }
    }
  }

  /// 1024 x 1024 CMYK pixels: every combination of lcms's 17 grid levels (node i of
  /// its grid lies at 8-bit i x 255 / 16), then combinations of those levels and their
  /// neighbours either side, then values of a fixed pseudo-random sequence.
  static func cmykSamples() -> [UInt8] {
    let levels = (0...16).map { UInt8(($0 * 255 + 8) / 16) }
    let nearby = levels.flatMap { [$0 &- 1, $0, $0 &+ 1] }
    var state: UInt32 = 12345
    func next() -> Int {
      state = state &* 1_103_515_245 &+ 12345
      return Int(state >> 8)
    }
    var pixels: [UInt8] = []
    pixels.reserveCapacity(1024 * 1024 * 4)
    for c in levels {
      for m in levels { for y in levels { for k in levels { pixels += [c, m, y, k] } } }
    }
    while pixels.count < 512 * 1024 * 4 { pixels.append(nearby[next() % nearby.count]) }
    while pixels.count < 1024 * 1024 * 4 { pixels.append(UInt8(truncatingIfNeeded: next())) }
    return pixels
  }

  @Test("a profile of garbage bytes: libvips's built-in fallback, as libvips does")
  func brokenProfileFallsBack() throws {
    let garbage = (0..<3144).map { UInt8(truncatingIfNeeded: $0 &* 7919 % 251) }
    let chelsea = try VipsImage(file: Fixtures.photo("chelsea.png")).materialized()
    let cmyk = try VipsImage(file: Fixtures.path("coffee-cmyk.jpg")).materialized()
    for (image, fallback) in [(chelsea, "srgb"), (cmyk, "cmyk")] {
      try Self.expectTakenAndSame("garbage on \(fallback)") {
        try image.embeddingICCProfile(garbage)
      }
      // Which is the transform with the fallback profile itself.
      let fallbackProfile = try VipsImage.builtInICCProfile(fallback)
      let ours = try #require(
        try image.embeddingICCProfile(garbage).iccTransformedToSRGBInProcess())
      let withFallback = try image.embeddingICCProfile(fallbackProfile)
        .iccTransformedToSRGBByLibvips()
      try Self.expectSame(ours, withFallback, "garbage on \(fallback) against \(fallback)")
    }
    // And the warning libvips gives for it, which the library keeps (no test else takes them).
    _ = Vips.takeWarnings()
    _ = try chelsea.embeddingICCProfile(garbage).iccTransformedToSRGBInProcess()
    #expect(Vips.takeWarnings().contains("corrupt profile"))
    _ = try chelsea.embeddingICCProfile(garbage).iccTransformedToSRGBByLibvips().writePixels()
    #expect(Vips.takeWarnings().contains("corrupt profile"))
    // An RGB profile on a CMYK image is unusable too: the CMYK fallback.
    let rgbProfile = try #require(chelsea.iccProfile)
    try Self.expectTakenAndSame("RGB profile on CMYK") { try cmyk.embeddingICCProfile(rgbProfile) }
  }

  @Test("declined: 16-bit samples, a profile with more bands than the image; libvips answers")
  func declinedCasesKeepLibvipsAnswer() throws {
    let astronaut = try VipsImage(file: Fixtures.photo("astronaut.png"))
    let sixteen = try VipsImage(file: Fixtures.path("astronaut-16bit.png")).materialized()
      .embeddingICCProfile(#require(astronaut.iccProfile))
    #expect(sixteen.format == .ushort)
    #expect(try sixteen.iccTransformedToSRGBInProcess() == nil)
    try Self.expectSame(
      sixteen.toSRGB(), sixteen.iccTransformedToSRGBByLibvips().castToUInt8(), "16-bit")

    // One grey band and an RGB profile: no profile fits, libvips fails, and toSRGB goes
    // on as for an image without one.
    let chelsea = try VipsImage(file: Fixtures.photo("chelsea.png"))
    let grey = try chelsea.extractingBands(1).tagged(as: .bw).materialized()
    let tagged = try grey.embeddingICCProfile(#require(chelsea.iccProfile))
    #expect(try tagged.iccTransformedToSRGBInProcess() == nil)
    #expect(throws: VipsError.self) { try tagged.iccTransformedToSRGBByLibvips().writePixels() }
    let (ours, plain) = (try tagged.toSRGB(), try grey.toSRGB())
    #expect(ours.bands == 3 && ours.interpretation == .srgb)
    #expect(try ours.writePixels() == plain.writePixels(), "grey with an RGB profile")
  }

  @Test("one transform per profile: built once for two photos, once more for another")
  func transformsAreCachedPerProfile() throws {
    let first = try Self.uniqueProfile(101)
    let second = try Self.uniqueProfile(202)
    #expect(VipsImage.iccTransformsBuilt(forProfile: first) == 0)
    for name in ["chelsea.png", "rocket.jpg"] {
      let photo = try VipsImage(file: Fixtures.photo(name)).embeddingICCProfile(first)
      #expect(try photo.iccTransformedToSRGBInProcess() != nil, "\(name)")
    }
    #expect(VipsImage.iccTransformsBuilt(forProfile: first) == 1)
    #expect(VipsImage.iccTransformsBuilt(forProfile: second) == 0)
    let other = try VipsImage(file: Fixtures.photo("astronaut.png")).embeddingICCProfile(second)
    #expect(try other.iccTransformedToSRGBInProcess() != nil)
    #expect(VipsImage.iccTransformsBuilt(forProfile: second) == 1)
    #expect(VipsImage.iccTransformsBuilt(forProfile: first) == 1)
  }

  @Test("one transform shared by threads: each result the same as libvips's, built once")
  func sharedAcrossThreads() throws {
    let profile = try Self.uniqueProfile(33)
    let image = try VipsImage(file: Fixtures.photo("hubble.jpg")).materialized()
      .embeddingICCProfile(profile).materialized()
    let expected = try image.iccTransformedToSRGBByLibvips().writePixels()
    let results = Results(count: 8)
    DispatchQueue.concurrentPerform(iterations: 8) { i in
      results.set(i, (try? image.iccTransformedToSRGBInProcess()?.writePixels()) ?? nil)
    }
    for (i, pixels) in results.all.enumerated() {
      #expect(pixels == expected, "thread \(i)")
    }
    #expect(VipsImage.iccTransformsBuilt(forProfile: profile) == 1)
  }
}

/// Each thread's pixels, kept under a lock.
private final class Results: @unchecked Sendable {
  private let lock = NSLock()
  private var values: [[UInt8]?]
  init(count: Int) { values = Array(repeating: nil, count: count) }
  func set(_ i: Int, _ value: [UInt8]?) { lock.withLock { values[i] = value } }
  var all: [[UInt8]?] { lock.withLock { values } }
}

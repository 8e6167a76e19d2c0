import Foundation
import TestFixtures
import Testing

@testable import Vips

/// `WebPDecode.c`: a still WebP decoded by libwebp alone, scaled on load or not, gives
/// the pixels and the metadata libvips's `webpload` gives for the same bytes and scale;
/// an animation and anything libwebp refuses are left to libvips.
@Suite("WebP decode by libwebp")
struct WebPDecodeTests {
  /// libwebp's test vectors (lossy, lossless, alpha filters, odd sizes) and the WebP
  /// photos of the fixtures.
  static func webps() throws -> [String] {
    let root = Fixtures.folder.appendingPathComponent("corpora/libwebp")
    var paths = try FileManager.default.contentsOfDirectory(atPath: root.path)
      .filter { $0.hasSuffix(".webp") }.map { root.appendingPathComponent($0).path }
    paths += try Fixture.photos.filter { $0.name.hasSuffix(".webp") }.map { try $0.path() }
    return paths.sorted()
  }

  static func libvipsLoad(_ bytes: [UInt8], factor: Int) throws -> VipsImage {
    try VipsImage.loadedByLibvips(
      ByteBuffer(copying: bytes), options: ShrinkOnLoad.options(loader: "webpload", factor: factor),
      failOn: FailOn.none.libvips, source: "reference.webp"
    ).materialized()
  }

  @Test("every pixel and every metadata field of libvips's webpload, at scales 1, 1/2 and 1/3")
  func sameAsLibvips() throws {
    var decoded = 0
    var declined: [String] = []
    var alpha = 0
    for path in try Self.webps() {
      let bytes = [UInt8](try Data(contentsOf: URL(filePath: path)))
      let probe = try VipsImage(bytes: bytes, name: path)
      #expect(probe.header.loader == "webpload", "\(path)")
      for factor in [1, 2, 3] where probe.width >= factor && probe.height >= factor {
        let label = "\(URL(filePath: path).lastPathComponent) at 1/\(factor)"
        guard
          let ours = try VipsImage.decodedByLibwebp(
            ByteBuffer(copying: bytes), like: probe, shrunkBy: factor, source: path)
        else {
          declined.append(label)
          continue
        }
        decoded += 1
        if ours.bands == 4 { alpha += 1 }
        let theirs = try Self.libvipsLoad(bytes, factor: factor)
        try CodecDecodeChecks.expectSame(ours, as: theirs, label)
      }
    }
    // libwebp's vectors all decode (dwebp's output is in their md5 list): none declined.
    #expect(decoded >= 370, "decoded \(decoded)")
    #expect(declined.isEmpty, "declined: \(declined)")
    #expect(alpha >= 60, "with alpha: \(alpha)")
  }

  /// A WebP file's image chunks (`ALPH`, `VP8 `, `VP8L`), without its container and
  /// metadata chunks: what an animation's frame holds.
  static func bitstream(_ file: [UInt8]) -> [UInt8] {
    var chunks: [UInt8] = []
    var offset = 12
    while offset + 8 <= file.count {
      let name = String(decoding: file[offset..<offset + 4], as: UTF8.self)
      let size = (0..<4).reduce(0) { $0 | Int(file[offset + 4 + $1]) << (8 * $1) }
      let end = min(file.count, offset + 8 + size + size % 2)
      if ["ALPH", "VP8 ", "VP8L"].contains(name) { chunks += file[offset..<end] }
      offset = end
    }
    return chunks
  }

  /// An animated WebP of `frames` (simple WebPs of the canvas's size) in ANMF chunks.
  static func animation(_ frames: [[UInt8]], width: Int, height: Int) -> [UInt8] {
    func little(_ value: Int, _ count: Int) -> [UInt8] {
      (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    func chunk(_ name: String, _ body: [UInt8]) -> [UInt8] {
      Array(name.utf8) + little(body.count, 4) + body + (body.count % 2 == 1 ? [0] : [])
    }
    var body = Array("WEBP".utf8)
    // VP8X: the animation flag, then the canvas's width and height less one.
    body += chunk("VP8X", [0x02, 0, 0, 0] + little(width - 1, 3) + little(height - 1, 3))
    body += chunk("ANIM", [0, 0, 0, 0] + little(0, 2))
    for frame in frames {
      // Offset 0, 0; the frame's size less one; 100 ms; no blending.
      let header = little(0, 3) + little(0, 3) + little(width - 1, 3) + little(height - 1, 3)
      body += chunk("ANMF", header + little(100, 3) + [0x02] + bitstream(frame))
    }
    return chunk("RIFF", body)
  }

  @Test("an animation, and pixels cut short, are left to libvips")
  func animationsAndDamageAreLeftToLibvips() throws {
    let path = try #require(Fixture.named("coffee.webp")).path()
    let photo = try VipsImage(file: path)
    let small = try photo.resized(scale: 0.1)
    let negative = try small.linear([-1], [255], clampToUInt8: true)
    let frames = [try small.webpData(quality: 90), try negative.webpData(quality: 90)]
    let animated = Self.animation(frames, width: small.width, height: small.height)
    let probe = try VipsImage(bytes: animated, name: "animated.webp")
    #expect(probe.metadataFields["n-pages"] == "2")
    #expect(
      try VipsImage.decodedByLibwebp(
        ByteBuffer(copying: animated), like: probe, shrunkBy: 1, source: "animated.webp") == nil)
    // Through the decode all the same: libvips's first frame.
    let (decoded, _, _) = try VipsImage.decode(bytes: animated, name: "animated.webp") { _ in 1 }
    let first = try Self.libvipsLoad(animated, factor: 1)
    #expect(try decoded.writePixels() == first.writePixels())

    // The fixture's photo with its compressed pixels cut to half (the chunk and RIFF
    // sizes told so, so that libvips's header read passes): libwebp fails, libvips says.
    let bytes = [UInt8](try Data(contentsOf: URL(filePath: path)))
    let vp8 = try #require(
      (12..<bytes.count - 4).first { String(decoding: bytes[$0..<$0 + 4], as: UTF8.self) == "VP8 " }
    )
    let size = (0..<4).reduce(0) { $0 | Int(bytes[vp8 + 4 + $1]) << (8 * $1) }
    let kept = size / 2 & ~1
    var cut = Array(bytes[..<(vp8 + 8 + kept)])
    func store(_ value: Int, at offset: Int) {
      for index in 0..<4 { cut[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }
    store(kept, at: vp8 + 4)
    store(cut.count - 8, at: 4)
    let header = try VipsImage(bytes: cut, name: "cut.webp")
    #expect(
      try VipsImage.decodedByLibwebp(
        ByteBuffer(copying: cut), like: header, shrunkBy: 1, source: "cut.webp") == nil)
    let refusal = #expect(throws: VipsError.self) {
      _ = try VipsImage.decode(bytes: cut, name: "cut.webp") { _ in 1 }
    }
    #expect(
      refusal?.description.contains("the WebP's compressed pixels are damaged") == true,
      "\(String(describing: refusal))")
    // Bytes of the pixels overwritten: lossy data libwebp cannot tell from good data
    // decodes, to the pixels libvips's loader (libwebp too) gives.
    var garbled = bytes
    for index in stride(from: vp8 + 40, to: garbled.count - 8, by: 97) { garbled[index] ^= 0x5A }
    let garbledHeader = try VipsImage(bytes: garbled, name: "garbled.webp")
    let ours = try #require(
      try VipsImage.decodedByLibwebp(
        ByteBuffer(copying: garbled), like: garbledHeader, shrunkBy: 1, source: "garbled.webp"))
    try CodecDecodeChecks.expectSame(ours, as: try Self.libvipsLoad(garbled, factor: 1), "garbled")
  }

  /// `VipsImage.decode` takes the codec's path for a still WebP (at each shrink), so the
  /// comparison above is what a render gets.
  @Test("the decode of a still WebP goes through libwebp alone")
  func decodeRoutesStillWebPToLibwebp() throws {
    let path = try #require(Fixture.named("coffee.webp")).path()
    let bytes = [UInt8](try Data(contentsOf: URL(filePath: path)))
    let probe = try VipsImage(bytes: bytes, name: path)
    for factor in [1, 2, 3] {
      let routed = try VipsImage.decodedByCodec(
        ByteBuffer(copying: bytes), like: probe, loader: "webpload", shrunkBy: factor,
        source: path)
      let image = try #require(routed, "1/\(factor)")
      try CodecDecodeChecks.expectSame(
        image, as: try Self.libvipsLoad(bytes, factor: factor), "coffee.webp 1/\(factor)")
    }
  }

  /// libwebp decodes in one call: a limit that passes during it is caught after it (the
  /// check before it passed), and the decode's pixels are dropped.
  @Test("a time limit that passes during the decode stops it when libwebp returns")
  func timeLimitDuringTheDecode() throws {
    // 2000x2000 of noise, lossy: a decode of tens of milliseconds.
    var state: UInt32 = 12_345
    let noise = (0..<2_000 * 2_000 * 3).map { _ -> UInt8 in
      state = state &* 1_103_515_245 &+ 12_345
      return UInt8(truncatingIfNeeded: state >> 16)
    }
    let bytes = try VipsImage(pixels: noise, width: 2_000, height: 2_000, bands: 3)
      .webpData(quality: 90)
    let probe = try VipsImage(bytes: bytes, name: "noise.webp")
    let storage = ByteBuffer(copying: bytes)
    let start = ContinuousClock.now
    let whole = try #require(
      try VipsImage.decodedByLibwebp(storage, like: probe, shrunkBy: 1, source: "noise.webp"))
    let decodeTime = ContinuousClock.now - start
    #expect(whole.width == 2_000)
    #expect(decodeTime > .milliseconds(10), "the decode took \(decodeTime): too short a test")
    #expect(throws: VipsError.timedOut(source: "noise.webp", seconds: 0.002)) {
      try Vips.withTimeLimit(.milliseconds(2), source: "noise.webp", timedOut: { $0 }) {
        () throws(VipsError) in
        _ = try VipsImage.decodedByLibwebp(
          storage, like: probe, shrunkBy: 1, source: "noise.webp")
      }
    }
  }

  @Test("a time limit already passed stops the decode")
  func timeLimit() throws {
    let path = try #require(Fixture.named("coffee.webp")).path()
    let bytes = [UInt8](try Data(contentsOf: URL(filePath: path)))
    let probe = try VipsImage(bytes: bytes, name: path)
    #expect(throws: VipsError.timedOut(source: "coffee.webp", seconds: 0.000_001)) {
      try Vips.withTimeLimit(.microseconds(1), source: "coffee.webp", timedOut: { $0 }) {
        () throws(VipsError) in
        usleep(2_000)
        _ = try VipsImage.decodedByLibwebp(
          ByteBuffer(copying: bytes), like: probe, shrunkBy: 1, source: "coffee.webp")
      }
    }
  }
}

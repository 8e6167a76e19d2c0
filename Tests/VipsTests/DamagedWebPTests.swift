import CVipsShim
import Foundation
import TestFixtures
import Testing

@testable import Vips

/// A lossy WebP cut short inside its pixel data, its sizes made to agree with the cut:
/// libwebp refuses it at every scale. libvips reports that failure from a decode's second
/// strip of rows only; when one strip held the whole decode (a wide photo shrunk on load
/// for a small fit), it came back black and was stored (go-fuzz-corpus's 2,454x100 WebP,
/// issue 25). Every decode of it must fail, whatever the shrink.
@Suite struct DamagedWebPTests {
  /// A 1,600x64 lossy WebP of real pixels in the simple format (one `VP8 ` chunk: libvips
  /// writes an extended one, its metadata in chunks of their own), cut to `keep` of its
  /// VP8 data, the RIFF and chunk sizes made to agree with the cut.
  static func cutWideWebP(keep: Double = 0.6) throws -> [UInt8] {
    let photo = try VipsImage(file: Fixtures.path("coffee.png"))  // 600x400
    let wide = try photo.resized(scale: 1600.0 / 600.0, verticalScale: 0.16)
      .cropped(left: 0, top: 0, width: 1600, height: 64)
    let saved = try wide.webpData(quality: 90)
    func word(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(saved[at + $1]) << (8 * $1) } }
    var offset = 12
    var vp8: [UInt8] = []
    while offset + 8 <= saved.count {
      let size = word(offset + 4)
      if Array(saved[offset..<(offset + 4)]) == Array("VP8 ".utf8) {
        vp8 = Array(saved[(offset + 8)..<(offset + 8 + size)])
      }
      offset += 8 + size + size % 2
    }
    #expect(!vp8.isEmpty, "a lossy WebP has a VP8 chunk")
    let kept = Array(vp8.prefix(Int(Double(vp8.count) * keep)))
    func le32(_ value: Int) -> [UInt8] {
      (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    let chunk = Array("VP8 ".utf8) + le32(kept.count) + kept + (kept.count % 2 == 1 ? [0] : [])
    return Array("RIFF".utf8) + le32(4 + chunk.count) + Array("WEBP".utf8) + chunk
  }

  /// Shrinks that leave 8 rows (one strip), 16 (one), 32 and 64 (several).
  @Test(arguments: [8.0, 4.0, 2.0, 1.0])
  func aCutWebPIsRefusedAtEveryShrink(shrink: Double) throws {
    let bytes = try Self.cutWideWebP()
    let image = try VipsImage(file: Fixtures.path("coffee.png"))
    var refusal: VipsError?
    do {
      let decoded = try VipsImage.decode(bytes: bytes, name: "cut.webp") { _ in shrink * 2 }
      Issue.record(
        "decoded as \(decoded.image.width)x\(decoded.image.height), factor \(decoded.shrunkBy)")
    } catch {
      refusal = error
    }
    let error = try #require(refusal)
    #expect(error.kind == .damaged, "\(error)")
    #expect(
      error.description.hasPrefix("cut.webp: the WebP's compressed pixels are damaged"),
      "\(error)")
    // The next failure on this thread is told with its own text only: the WebP's, which
    // libvips's workers raised in a run that libvips let succeed (ThreadErrors.c), is
    // not kept for it.
    var next: VipsError?
    do {
      _ = try image.derive("extract_area") { cvips_extract_area($0, $1, 0, 0, 9_999, 1) }
    } catch {
      next = error
    }
    let text = try #require(next).description
    #expect(text.contains("bad extract area") && !text.contains("webp"), "\(text)")
  }

  /// The same WebP whole decodes, at every shrink: the refusal is the cut's.
  @Test(arguments: [8.0, 1.0])
  func theWholeWebPDecodes(shrink: Double) throws {
    let bytes = try Self.cutWideWebP(keep: 1)
    let decoded = try VipsImage.decode(bytes: bytes, name: "whole.webp") { _ in shrink * 2 }
    #expect(decoded.image.width == 1600 / decoded.shrunkBy && decoded.image.height > 0)
  }
}

import Foundation
import Testing

@testable import Vips

/// The checks both codec decoders' tests make (`JPEGDecodeTests`, `PNGDecodeTests`).
enum CodecDecodeChecks {
  /// The fields but two that say how an image was made, not what it shows: the name
  /// libvips gives a temporary image, and the mark of its sequential loader.
  static func comparable(_ fields: [String: String]) -> [String: String] {
    fields.filter { $0.key != "filename" && $0.key != "vips-sequential" }
  }

  /// A decoder's image against libvips's load of the same bytes: in memory, the same
  /// size, bands, format and interpretation, every metadata field but the two above, and
  /// every pixel.
  static func expectSame(_ ours: VipsImage, as theirs: VipsImage, _ label: String) throws {
    #expect(ours.isInMemory, "\(label)")
    #expect(
      (ours.width, ours.height, ours.bands, ours.format, ours.interpretation)
        == (theirs.width, theirs.height, theirs.bands, theirs.format, theirs.interpretation),
      "\(label)")
    #expect(comparable(ours.metadataFields) == comparable(theirs.metadataFields), "\(label)")
    #expect(try ours.writePixels() == theirs.writePixels(), "\(label)")
  }

  /// A slow file decodes whole without a limit, and under a limit of 5 ms the decode
  /// throws the limit's error well before the whole decode's time.
  ///
  /// Decodes with `decode` once without a limit (returned, for the caller's checks) and
  /// once under a 5 ms limit named `source`, expecting the stop within half the whole
  /// decode's time: a check only once every row is read would take nearly all of it.
  static func expectStopsInside(
    source: String, _ decode: () throws(VipsError) -> VipsImage?
  ) throws -> VipsImage {
    var start = ContinuousClock.now
    let decoded = try #require(try decode())
    let whole = Vips.seconds(ContinuousClock.now - start)
    start = ContinuousClock.now
    #expect(throws: VipsError.timedOut(source: source, seconds: 0.005)) {
      try Vips.withTimeLimit(.milliseconds(5), source: source, timedOut: { $0 }) {
        () throws(VipsError) in _ = try decode()
      }
    }
    let stopped = Vips.seconds(ContinuousClock.now - start)
    #expect(stopped < whole / 2, "stopped after \(stopped) s; the whole decode took \(whole) s")
    return decoded
  }
}

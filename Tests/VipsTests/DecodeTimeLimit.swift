import Foundation
import Testing

@testable import Vips

/// The check both codec decoders' time-limit tests make (`JPEGDecodeTests`,
/// `PNGDecodeTests`): a slow file decodes whole without a limit, and under a limit of
/// 5 ms the decode throws the limit's error well before the whole decode's time.
enum DecodeTimeLimit {
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

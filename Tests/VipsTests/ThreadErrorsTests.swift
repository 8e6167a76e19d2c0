import Foundation
import Locking
import TestFixtures
import Testing

@testable import Vips

/// libvips keeps one error buffer for the whole process; the refusals of photos decoded
/// at once on several threads must each carry their own text all the same
/// (`Sources/CVipsShim/ThreadErrors.c`).
@Suite("libvips's errors, thread by thread")
struct ThreadErrorsTests {
  /// hubble.jpg with its frame's sample precision set to 7: refused while its header is
  /// read, with libjpeg's "Unsupported JPEG data precision 7".
  static func badPrecisionJPEG() throws -> [UInt8] {
    var jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.photo("hubble.jpg"))))
    let frame = try #require(
      (0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && [0xC0, 0xC2].contains(jpeg[$0 + 1]) })
    jpeg[frame + 4] ^= 0x0F
    return jpeg
  }

  /// astronaut.png saved as an LZW TIFF with 256 bytes scrambled 30% of the way in:
  /// refused while its strips decode, with libtiff's "Using code not yet in table".
  static func damagedLZWTIFF() throws -> [UInt8] {
    let path = try Fixtures.temporaryFolder().appendingPathComponent("saved.tif").path
    try VipsImage(file: Fixtures.photo("astronaut.png")).save(to: path, options: "compression=lzw")
    var tiff = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let start = tiff.count * 3 / 10
    for index in start..<start + 256 { tiff[index] ^= 0x5A }
    return tiff
  }

  static func failure(_ bytes: [UInt8], name: String) -> String {
    do {
      _ = try VipsImage.decode(bytes: bytes, name: name) { _ in 1 }
      return "decoded"
    } catch {
      return "\(error)"
    }
  }

  /// Four threads each refuse the two files in turn, 25 times: every refusal has its
  /// file's libvips text and never the other's. With libvips's buffer shared, a JPEG's
  /// refusal read the TIFF's text, and one found the buffer emptied by another thread.
  @Test func refusalsAtOnceOnSeveralThreadsKeepTheirOwnText() async throws {
    let jpeg = try Self.badPrecisionJPEG()
    let tiff = try Self.damagedLZWTIFF()
    let jpegText = "Unsupported JPEG data precision 7"
    let tiffText = "Using code not yet in table"
    // Each file alone first: the texts this test looks for are the ones libvips gives.
    #expect(Self.failure(jpeg, name: "bad.jpg").contains(jpegText))
    #expect(Self.failure(tiff, name: "bad.tif").contains(tiffText))
    // Four threads of their own, let go together, each counting the refusals in flight
    // as it starts one: at least two must overlap, or this test proves nothing.
    let found = Lock<[String]>([])
    let inFlight = Lock((now: 0, most: 0))
    let start = DispatchSemaphore(value: 0)
    let finished = DispatchGroup()
    for thread in 0..<4 {
      finished.enter()
      Thread {
        start.wait()
        for round in 0..<50 {
          let isJPEG = (thread + round) % 2 == 0
          inFlight.withLock {
            $0.now += 1
            $0.most = max($0.most, $0.now)
          }
          let text = Self.failure(isJPEG ? jpeg : tiff, name: isJPEG ? "bad.jpg" : "bad.tif")
          inFlight.withLock { $0.now -= 1 }
          let own = isJPEG ? jpegText : tiffText
          let other = isJPEG ? tiffText : jpegText
          if !text.contains(own) || text.contains(other) {
            found.withLock { $0.append("thread \(thread) round \(round): \(text)") }
          }
        }
        finished.leave()
      }.start()
    }
    for _ in 0..<4 { start.signal() }
    try await onOwnThread { finished.wait() }
    let wrong = found.withLock { $0 }
    #expect(inFlight.withLock { $0.most } >= 2)
    #expect(wrong.isEmpty, "\(wrong.count) of 200 refusals: \(wrong.prefix(3))")
  }
}

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

  /// chelsea.png saved as a WebP with 256 bytes scrambled 70% of the way in: libwebp
  /// declines it, and libvips's loader, which decodes a WebP into memory on its
  /// threadpool's workers, refuses it there with "unable to read pixels".
  static func damagedWebP() throws -> [UInt8] {
    let path = try Fixtures.temporaryFolder().appendingPathComponent("saved.webp").path
    try VipsImage(file: Fixtures.photo("chelsea.png")).save(to: path)
    var webp = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let start = webp.count * 7 / 10
    for index in start..<start + 256 { webp[index] ^= 0x5A }
    return webp
  }

  static func failure(_ bytes: [UInt8], name: String) -> String {
    do {
      _ = try VipsImage.decode(bytes: bytes, name: name) { _ in 1 }
      return "decoded"
    } catch {
      return "\(error)"
    }
  }

  /// A damaged file, its name, and the text libvips refuses it with.
  struct Refusal: Sendable {
    var bytes: [UInt8]
    var name: String
    var text: String
  }

  /// Four threads of their own, let go together, each refuse the files in turn, 50
  /// times: what every refusal that did not carry its own file's text (or carried
  /// another's) said, and the most refusals that were in flight at once.
  static func refusedAtOnce(_ files: [Refusal]) async throws -> (wrong: [String], most: Int) {
    for file in files {
      // Each file alone first: the texts this test looks for are the ones libvips gives.
      #expect(Self.failure(file.bytes, name: file.name).contains(file.text), "\(file.name)")
    }
    // Each thread counts the refusals in flight as it starts one: at least two must
    // overlap, or the test proves nothing.
    let found = Lock<[String]>([])
    let inFlight = Lock((now: 0, most: 0))
    let start = DispatchSemaphore(value: 0)
    let finished = DispatchGroup()
    for thread in 0..<4 {
      finished.enter()
      Thread {
        start.wait()
        for round in 0..<50 {
          let file = files[(thread + round) % files.count]
          inFlight.withLock {
            $0.now += 1
            $0.most = max($0.most, $0.now)
          }
          let text = Self.failure(file.bytes, name: file.name)
          inFlight.withLock { $0.now -= 1 }
          let others = files.filter { $0.text != file.text }.map(\.text)
          if !text.contains(file.text) || others.contains(where: { text.contains($0) }) {
            found.withLock { $0.append("thread \(thread) round \(round): \(text)") }
          }
        }
        finished.leave()
      }.start()
    }
    for _ in 0..<4 { start.signal() }
    try await onOwnThread { finished.wait() }
    return (found.withLock { $0 }, inFlight.withLock { $0.most })
  }

  /// Refused on the thread that asked: with libvips's buffer shared, a JPEG's refusal
  /// read the TIFF's text, and one found the buffer emptied by another thread.
  @Test func refusalsAtOnceOnSeveralThreadsKeepTheirOwnText() async throws {
    let (wrong, most) = try await Self.refusedAtOnce([
      Refusal(
        bytes: try Self.badPrecisionJPEG(), name: "bad.jpg",
        text: "Unsupported JPEG data precision 7"),
      Refusal(
        bytes: try Self.damagedLZWTIFF(), name: "bad.tif", text: "Using code not yet in table"),
    ])
    #expect(most >= 2)
    #expect(wrong.isEmpty, "\(wrong.count) of 200 refusals: \(wrong.prefix(3))")
  }

  /// Refused on libvips's workers: the WebP's text goes to the thread that asked for the
  /// decode. Left in libvips's one buffer, as it was, one thread's refusal read both
  /// WebPs' texts and the other's had none ("load failed, and libvips gave no reason").
  @Test func refusalsOnLibvipsWorkersReachTheThreadThatAsked() async throws {
    let webp = try Self.damagedWebP()
    // More rows than one strip of the decode: refused by libvips's loader itself, not by
    // the decode's own check of a WebP decoded in one strip (which words the same text).
    #expect(try VipsImage(bytes: webp, name: "bad.webp").height > 16)
    let (wrong, most) = try await Self.refusedAtOnce([
      Refusal(bytes: webp, name: "bad.webp", text: "unable to read pixels"),
      Refusal(
        bytes: try Self.badPrecisionJPEG(), name: "bad.jpg",
        text: "Unsupported JPEG data precision 7"),
    ])
    #expect(most >= 2)
    #expect(wrong.isEmpty, "\(wrong.count) of 200 refusals: \(wrong.prefix(3))")
  }
}

import Foundation
import TestFixtures
import Testing

@testable import Vips

@Suite("Bad input")
struct BadInputTests {
  /// Opens the file and decodes a thumbnail, as the cache will; returns the error.
  private func failure(_ path: String, limits: ImageLimits = .standard) -> VipsError? {
    do {
      _ = try VipsImage.thumbnail(file: path, width: 64, options: .init(limits: limits))
      return nil
    } catch {
      return error
    }
  }

  @Test func emptyFile() throws {
    let path = try Generated.file("empty.jpg", bytes: [], in: Fixtures.temporaryFolder())
    #expect(failure(path) == .empty(source: path))
    #expect(failure(path)?.description == "\(path): the file is empty (0 bytes)")
  }

  @Test func missingFile() {
    let path = "/nonexistent/photo.jpg"
    #expect(failure(path) == .unreadable(source: path, message: "no such file"))
  }

  @Test func notAnImage() throws {
    let folder = try Fixtures.temporaryFolder()
    let text = try Generated.file(
      "text.jpg", bytes: Array("just a line of text\n".utf8), in: folder)
    // The same noise every run (a fixed linear congruential sequence): fresh random
    // bytes start with a loader's magic now and then (FF D8 is a JPEG's, 1 run in 65,536).
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    let noise = (0..<4096).map { _ -> UInt8 in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 56)
    }
    let random = try Generated.file("random.png", bytes: noise, in: folder)
    #expect(failure(text) == .notAnImage(source: text))
    #expect(failure(random) == .notAnImage(source: random))
    #expect(failure(text)?.description.contains("not an image") == true)
  }

  @Test func truncatedJPEG() throws {
    let path = try Generated.truncatedJPEG(in: Fixtures.temporaryFolder())
    guard case .truncated(let source, let message) = failure(path) else {
      Issue.record("expected a truncation error, got \(String(describing: failure(path)))")
      return
    }
    #expect(source == path)
    // libvips's own words when its shared error buffer still holds them for this decode;
    // ours when another thread's failure took them first (tests run in parallel).
    #expect(
      message.contains("Premature end") || message == "the file ends before its end marker",
      "\(message)")
  }

  @Test func bombIsRefusedFromItsHeader() throws {
    let folder = try Fixtures.temporaryFolder()
    let path = try Generated.bombPNG(in: folder, width: 100_000, height: 100_000)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count < 200)
    let start = ContinuousClock.now
    #expect(
      failure(path)
        == .dimensionTooLarge(source: path, width: 100_000, height: 100_000, limit: 65_535))
    // Within the side limit, the pixel limit refuses it.
    let wide = ImageLimits(maxPixels: 100_000_000, maxDimension: 200_000)
    #expect(
      failure(path, limits: wide)
        == .tooManyPixels(
          source: path, width: 100_000, height: 100_000, pages: 1, limit: 100_000_000))
    // Refused from the header: far under the seconds a 30 GB decode would take.
    #expect(ContinuousClock.now - start < .seconds(5))
  }

  @Test func limitsAreConfigurable() throws {
    let path = Fixtures.photo("rocket.jpg")  // 640x427 = 273,280 pixels
    #expect(failure(path, limits: .init(maxPixels: 273_280)) == nil)
    #expect(
      failure(path, limits: .init(maxPixels: 273_279))
        == .tooManyPixels(source: path, width: 640, height: 427, pages: 1, limit: 273_279))
    #expect(
      failure(path, limits: .init(maxDimension: 639))
        == .dimensionTooLarge(source: path, width: 640, height: 427, limit: 639))
  }

  @Test func blockedLoaderSaysSo() throws {
    let path = try Generated.ppm(in: Fixtures.temporaryFolder())
    #expect(failure(path) == .blockedLoader(source: path, loader: "ppmload"))
    #expect(failure(path)?.description.contains("blocked for untrusted input") == true)
  }

  @Test func badBytesNameTheirSource() {
    #expect(throws: VipsError.empty(source: "upload #3")) {
      try VipsImage.thumbnail(bytes: [], name: "upload #3", width: 10)
    }
    #expect(throws: VipsError.notAnImage(source: "upload #4")) {
      try VipsImage.thumbnail(bytes: Array("hello".utf8), name: "upload #4", width: 10)
    }
  }

  @Test("every bad fixture gives its own error")
  func badFixtures() throws {
    let bad = { (name: String) throws -> String in try Fixtures.path(name) }
    #expect(try failure(bad("zero-bytes.jpg")) == .empty(source: bad("zero-bytes.jpg")))
    #expect(try failure(bad("random-bytes.png")) == .notAnImage(source: bad("random-bytes.png")))
    #expect(try failure(bad("text.jpg")) == .notAnImage(source: bad("text.jpg")))
    let truncated = try bad("truncated.jpg")
    if case .truncated(let source, _) = failure(truncated) {
      #expect(source == truncated)
    } else {
      Issue.record("truncated.jpg gave \(String(describing: failure(truncated)))")
    }
    let bomb = try bad("bomb-header-100000x100000.png")
    #expect(
      failure(bomb, limits: .init(maxDimension: 1_000_000))
        == .tooManyPixels(
          source: bomb, width: 100_000, height: 100_000, pages: 1, limit: 100_000_000))
    for fixture in Fixture.badInputs {
      #expect(try failure(fixture.path()) != nil, "\(fixture) was decoded")
    }
  }
}

import Foundation
import TestFixtures
import Testing

@testable import Vips

@Suite("Header probe of bytes still arriving")
struct HeaderProbeTests {
  /// The shortest prefix of `bytes` whose header probes, and that header.
  private func firstHeader(_ bytes: [UInt8], name: String) throws -> (Int, ImageHeader)? {
    // Doubling prefixes, as chunks of a download add up, then the whole file.
    let sizes = sequence(first: 1) { $0 * 2 }.prefix { $0 < bytes.count } + [bytes.count]
    for count in sizes {
      if case .header(let header) = try HeaderProbe.probe(Array(bytes.prefix(count)), name: name) {
        return (count, header)
      }
    }
    return nil
  }

  @Test(arguments: ["hubble.jpg", "rocket.jpg", "retina.jpg", "coffee.png", "chelsea.png"])
  func theHeaderOfAPrefixIsTheWholeFilesAndComesEarly(name: String) throws {
    let bytes = try Fixtures.bytes(name)
    let (count, header) = try #require(try firstHeader(bytes, name: name))
    #expect(header == (try ImageHeader(file: Fixtures.photo(name))))
    // Known before the body: at most a quarter of the file (and 64 KiB) was needed.
    #expect(count <= min(bytes.count / 4, 64 << 10))
  }

  @Test func aFewBytesNoLoaderKnowsAreNotYetRefused() throws {
    #expect(try HeaderProbe.probe(Array("<!DOC".utf8), name: "page") == .needMore)
    #expect(try HeaderProbe.probe([], name: "page") == .needMore)
  }

  @Test func anHTMLPageIsNotAnImage() throws {
    let page = Array(
      ("<!DOCTYPE html><html><head><title>404 Not Found</title></head>"
        + "<body><h1>Not Found</h1></body></html>").utf8)
    #expect(throws: VipsError.notAnImage(source: "http://h/a.jpg")) {
      try HeaderProbe.probe(page, name: "http://h/a.jpg")
    }
  }

  @Test func aPNGPrefixIsReadAsPNGWhateverItIsCalled() throws {
    let bytes = try Fixtures.bytes("coffee.png")
    guard case .header(let header) = try HeaderProbe.probe(Array(bytes.prefix(4096)), name: "x.jpg")
    else {
      Issue.record("no header from 4 KiB of a PNG")
      return
    }
    #expect(header.loader == "pngload")
    #expect(header.width == 600 && header.height == 400)
  }
}

import Foundation
import Locking
import TestFixtures
import Testing

@testable import Vips

/// `FailOn`, on files made from `hubble.jpg` (a baseline JPEG, one scan): only its EOI
/// marker missing, cut in the middle of its scan, whole with junk between two markers,
/// and with a stray marker in its scan.
@Suite("FailOn levels")
struct FailOnTests {
  static func bytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// The whole decode, no shrink on load.
  static func decode(_ bytes: [UInt8], name: String, _ failOn: FailOn) throws(VipsError)
    -> VipsImage
  {
    try VipsImage.decode(bytes: bytes, name: name, failOn: failOn) { _ in 1 }.image
  }

  @Test func aJPEGMissingOnlyItsEndMarkerDecodesAsTheWholeFileDoes() throws {
    let folder = try Fixtures.temporaryFolder()
    let path = try Generated.jpegWithoutEndMarker(in: folder)
    let cut = try Self.bytes(path)
    let whole = try Fixtures.bytes("hubble.jpg")
    #expect(cut.count == whole.count - 2)
    let decoded = try Self.decode(cut, name: path, .truncated)
    let reference = try Self.decode(whole, name: "hubble.jpg", .truncated)
    #expect(decoded.width == 1000 && decoded.height == 872)
    #expect(try decoded.writePixels() == reference.writePixels())
    // And as libvips loads the whole file itself, through another path.
    #expect(try decoded.maximumDifference(to: VipsImage(file: Fixtures.photo("hubble.jpg"))) == 0)
    // `none` decodes it too, to the same pixels.
    #expect(try Self.decode(cut, name: path, .none).writePixels() == reference.writePixels())
  }

  @Test(arguments: [FailOn.error, .warning])
  func libvipssStricterLevelsRefuseAMissingEndMarker(_ level: FailOn) throws {
    let path = try Generated.jpegWithoutEndMarker(in: Fixtures.temporaryFolder())
    do {
      _ = try Self.decode(try Self.bytes(path), name: path, level)
      Issue.record("\(level) decoded a JPEG without its end marker")
    } catch let error as VipsError {
      guard case .truncated(let source, _) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(source == path)
    }
  }

  @Test func aJPEGCutMidScanIsRefusedAsTruncatedByDefault() throws {
    let path = try Generated.truncatedJPEG(in: Fixtures.temporaryFolder())
    let expected = [
      // libvips's own words for the file as it is, when the process's one error buffer
      // still holds them for this decode; ours when another test's decode took them.
      "the image data ends early (truncated) (libvips: VipsJpeg: Premature end of input file)",
      // The same with libjpeg's warning for this very file in front (a clean-clone CI run
      // gave this five times in a row).
      "the image data ends early (truncated) (libvips: VipsJpeg: Corrupt JPEG data: premature "
        + "end of data segment; VipsJpeg: Premature end of input file)",
      "the image data ends early (truncated): the file ends before its end marker",
    ]
    // Other tests decode bad JPEGs in this process at the same time, and libvips keeps one
    // error buffer for all threads: a decode whose message came back mixed with another's
    // is tried again (up to 5 times), and the message must then be exactly one of these.
    var reasons: [String] = []
    for _ in 0..<5 {
      do {
        _ = try Self.decode(try Self.bytes(path), name: path, .truncated)
        Issue.record("a JPEG cut mid-scan decoded")
        return
      } catch let error as VipsError {
        guard case .truncated(let source, _) = error else {
          Issue.record("\(error)")
          return
        }
        #expect(source == path)
        reasons.append(String(error.description.dropFirst("\(path): ".count)))
        if expected.contains(reasons.last!) { break }
      }
    }
    #expect(reasons.last.map(expected.contains) == true, "\(reasons)")
  }

  /// `none` decodes what the file holds: the rows above the cut are the photo's, the
  /// rest is libjpeg's fill, not the photo.
  @Test func noneDecodesAJPEGCutMidScan() throws {
    let path = try Generated.truncatedJPEG(in: Fixtures.temporaryFolder())
    let decoded = try Self.decode(try Self.bytes(path), name: path, .none)
    let reference = try Self.decode(try Fixtures.bytes("hubble.jpg"), name: "hubble.jpg", .none)
    #expect(decoded.width == 1000 && decoded.height == 872)
    let top = 872 / 4
    #expect(
      try decoded.cropped(left: 0, top: 0, width: 1000, height: top).writePixels()
        == reference.cropped(left: 0, top: 0, width: 1000, height: top).writePixels())
    let bottom = { (image: VipsImage) in
      try image.cropped(left: 0, top: 872 - 80, width: 1000, height: 80)
    }
    #expect(try bottom(decoded).meanAbsoluteDifference(to: bottom(reference)) > 5)
  }

  /// Junk between two markers: libjpeg warns and skips it, every pixel is the photo's.
  @Test func warningRefusesAJPEGLibjpegWarnsAboutAndTheOthersDecodeIt() throws {
    let path = try Generated.jpegWithExtraneousBytes(in: Fixtures.temporaryFolder())
    let bytes = try Self.bytes(path)
    let reference = try Self.decode(try Fixtures.bytes("hubble.jpg"), name: "hubble.jpg", .none)
    for level in [FailOn.none, .truncated, .error] {
      let decoded = try Self.decode(bytes, name: path, level)
      #expect(try decoded.writePixels() == reference.writePixels(), "\(level)")
    }
    do {
      _ = try Self.decode(bytes, name: path, .warning)
      Issue.record("warning decoded a JPEG libjpeg warns about")
    } catch {
      // libvips's message (libjpeg's warning) comes from the process's one error
      // buffer, which decodes in other tests share, and the operation is whichever first
      // asked for the pixels (the load, the profile's transform): the case and the file
      // are this one's.
      // libjpeg's warning, when the buffer still holds it, is said in our words.
      #expect(error.source == path, "\(error)")
      if error.description.contains("extraneous bytes") {
        #expect(
          error.reason.hasPrefix(
            "the JPEG is damaged: bytes that are not JPEG data lie between two of its markers"
              + " (libvips: "), "\(error)")
      } else {
        // Another decode's text: a failure of this file all the same, never a truncation.
        #expect(
          {
            switch error {
            case .operationFailed(_, path, _), .badInput(path, _, _, _): true
            default: false
            }
          }(), "\(error)")
      }
    }
  }

  static let scanRanOut =
    "the image data ends early (truncated): a scan runs out of data before the photo's "
    + "last row (libjpeg would fill the rest with grey) "
    + "(libvips: libjpeg: Corrupt JPEG data: premature end of data segment)"

  /// A scan that meets a marker before its last block: libjpeg warns, and every row after
  /// is grey. With an EOI marker at the end (a stray marker mid-scan, a file cut and
  /// "repaired", a header claiming more rows than the data holds), only that warning
  /// tells; `truncated` and `error` refuse the file, `none` draws it.
  @Test(arguments: ["stray marker", "cut, EOI appended", "header taller than the data"])
  func aScanThatRunsOutIsRefusedWhateverEndsTheFile(_ kind: String) throws {
    let folder = try Fixtures.temporaryFolder()
    let path: String
    switch kind {
    case "stray marker": path = try Generated.jpegWithStrayMarker(in: folder)
    case "cut, EOI appended": path = try Generated.jpegCutWithEndMarker("rocket.jpg", in: folder)
    default:
      // rocket.jpg's frame header (SOF0) says 640x427; here it says 640x854.
      var bytes = try Fixtures.bytes("rocket.jpg")
      let frame = try #require(
        bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
      #expect(bytes[(frame + 5)...(frame + 8)] == [0x01, 0xAB, 0x02, 0x80])
      bytes[frame + 5] = 0x03
      bytes[frame + 6] = 0x56
      path = try Generated.file("rocket-taller.jpg", bytes: bytes, in: folder)
    }
    let bytes = try Self.bytes(path)
    #expect(bytes.suffix(2) == [0xFF, 0xD9])
    for level in [FailOn.truncated, .error] {
      #expect(throws: VipsError.self, "\(level)") { _ = try Self.decode(bytes, name: path, level) }
      do {
        _ = try Self.decode(bytes, name: path, level)
      } catch {
        #expect(error.description == "\(path): \(Self.scanRanOut)", "\(level)")
      }
    }
    // `none` draws it: its last rows are libjpeg's fill, one flat colour (grey, through
    // the photo's profile), as libvips's own load of the file draws them.
    let drawn = try Self.decode(bytes, name: path, .none)
    let last = try drawn.cropped(left: 0, top: drawn.height - 8, width: drawn.width, height: 8)
    let pixels = try last.writePixels()
    #expect(Set(stride(from: 0, to: pixels.count, by: 3).map { pixels[$0..<$0 + 3] }).count == 1)
    #expect(
      try last.maximumDifference(
        to: VipsImage(file: path).cropped(
          left: 0, top: drawn.height - 8, width: drawn.width, height: 8
        ).toSRGB()) <= 1)
  }

  /// Each decode's warnings are its own: whole photos decoded beside broken ones on other
  /// threads are never refused for another's warning, and every broken one is.
  @Test func aDecodesWarningsAreItsOwnWhileOthersDecodeBesideIt() throws {
    let folder = try Fixtures.temporaryFolder()
    let broken = try Self.bytes(Generated.jpegWithStrayMarker(in: folder))
    let whole = try Fixtures.bytes("hubble.jpg")
    let outcomes = Lock<[(broken: Bool, decoded: Bool)]>([])
    DispatchQueue.concurrentPerform(iterations: 24) { index in
      let isBroken = index % 2 == 0
      let decoded = try? Self.decode(isBroken ? broken : whole, name: "\(index)", .truncated)
      outcomes.withLock { $0.append((isBroken, decoded != nil)) }
    }
    let seen = outcomes.withLock { $0 }
    #expect(seen.count == 24)
    #expect(seen.allSatisfy { $0.broken != $0.decoded }, "\(seen)")
  }

  /// The warnings collected on a thread are that thread's decode's alone: a whole JPEG
  /// decoded while a broken one warns on another thread collects none, and the broken one
  /// collects its own every time.
  @Test func warningsAreCollectedOnTheDecodingThreadOnly() throws {
    let folder = try Fixtures.temporaryFolder()
    let broken = try Self.bytes(Generated.jpegWithStrayMarker(in: folder))
    let whole = try Fixtures.bytes("hubble.jpg")
    @Sendable func warnings(_ bytes: [UInt8]) throws -> [String] {
      try WarningLog.onThisThread { () throws(VipsError) in
        try VipsImage(bytes: bytes).materializedOnThisThread()
      }.1
    }
    let outcomes = Lock<[(broken: Bool, warned: Bool)]>([])
    DispatchQueue.concurrentPerform(iterations: 24) { index in
      let isBroken = index % 2 == 0
      let warned = (try? warnings(isBroken ? broken : whole)).map(TruncationCheck.decodeWarned)
      outcomes.withLock { $0.append((isBroken, warned ?? false)) }
    }
    let seen = outcomes.withLock { $0 }
    #expect(seen.count == 24)
    #expect(seen.allSatisfy { $0.broken == $0.warned }, "\(seen)")
  }

  @Test func theLevelsAreLibvipssNames() {
    #expect(FailOn.allCases.map(\.rawValue) == ["none", "truncated", "error", "warning"])
  }
}

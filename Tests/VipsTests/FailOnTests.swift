import Foundation
import TestFixtures
import Testing

@testable import Vips

/// `FailOn`, on files made from `hubble.jpg` (a baseline JPEG, one scan): only its EOI
/// marker missing, cut in the middle of its scan, and whole with a stray marker.
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
      "the image data ends early (truncated): VipsJpeg: Premature end of input file",
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

  @Test func warningRefusesAJPEGLibjpegWarnsAboutAndTheOthersDecodeIt() throws {
    let path = try Generated.jpegWithStrayMarker(in: Fixtures.temporaryFolder())
    let bytes = try Self.bytes(path)
    for level in [FailOn.none, .truncated, .error] {
      let decoded = try Self.decode(bytes, name: path, level)
      #expect(decoded.width == 1000 && decoded.height == 872, "\(level)")
    }
    do {
      _ = try Self.decode(bytes, name: path, .warning)
      Issue.record("warning decoded a JPEG libjpeg warns about")
    } catch {
      // libvips's message (libjpeg's warning) comes from the process's one error
      // buffer, which decodes in other tests share: the case and the file are this one's.
      #expect(
        { if case .operationFailed("load", path, _) = error { true } else { false } }(),
        "\(error)")
    }
  }

  @Test func theLevelsAreLibvipssNames() {
    #expect(FailOn.allCases.map(\.rawValue) == ["none", "truncated", "error", "warning"])
  }
}

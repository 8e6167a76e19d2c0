import Foundation
import Testing

@testable import Vips

/// Where test images come from: the photos bundled in `Examples/Photos` (always
/// there), the shared fixtures beside the checkout (when present), and images made
/// here with libvips.
enum Fixtures {
  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let bundledPhotos = packageRoot.appendingPathComponent("Examples/Photos")
  static let shared = packageRoot.appendingPathComponent("../shared/fixtures").standardized

  /// Whether `../shared/fixtures` is beside this checkout (it is in CI, not for a fresh user).
  static var sharedAvailable: Bool {
    FileManager.default.fileExists(atPath: shared.appendingPathComponent("photos").path)
  }

  static func bundled(_ name: String) -> String {
    bundledPhotos.appendingPathComponent(name).path
  }

  static func sharedPhoto(_ name: String) -> String {
    shared.appendingPathComponent("photos").appendingPathComponent(name).path
  }

  static func sharedBad(_ name: String) -> String {
    shared.appendingPathComponent("bad").appendingPathComponent(name).path
  }

  static func files(in folder: URL) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") && !$0.hasSuffix(".txt") }
      .sorted().map { folder.appendingPathComponent($0).path }
  }

  /// A new empty folder for one test's files.
  static func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("imagetool-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }
}

/// Images and files made for one test from the bundled photos.
enum Generated {
  /// `chelsea.png` stored turned a quarter anticlockwise, with EXIF orientation 6
  /// (turn clockwise to show), as a camera held upright would write it.
  static func exifRotatedJPEG(in folder: URL) throws -> String {
    let upright = try VipsImage(file: Fixtures.bundled("chelsea.png"))
    let stored = try upright.rotated(quarterTurns: 3).settingOrientation(6)
    let path = folder.appendingPathComponent("chelsea-exif6.jpg").path
    try stored.write(to: path, quality: 95)
    return path
  }

  /// A truncated JPEG: the first 60% of a real one.
  static func truncatedJPEG(in folder: URL) throws -> String {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.bundled("hubble.jpg")))
    let path = folder.appendingPathComponent("truncated.jpg")
    try bytes.prefix(bytes.count * 6 / 10).write(to: path)
    return path.path
  }

  /// A valid PNG of a few bytes whose header claims `width` x `height` RGB pixels.
  static func bombPNG(in folder: URL, width: UInt32, height: UInt32) throws -> String {
    var ihdr: [UInt8] = Array("IHDR".utf8)
    for value in [width, height] {
      ihdr += [24, 16, 8, 0].map { UInt8((value >> UInt32($0)) & 0xff) }
    }
    ihdr += [8, 2, 0, 0, 0]  // 8 bits, RGB, deflate, no filter, no interlace
    func chunk(_ body: [UInt8]) -> [UInt8] {
      let length = UInt32(body.count - 4)
      let crc = crc32(body)
      return [24, 16, 8, 0].map { UInt8((length >> UInt32($0)) & 0xff) } + body
        + [24, 16, 8, 0].map { UInt8((crc >> UInt32($0)) & 0xff) }
    }
    // The start of a zlib stream: one stored block of 100 zero bytes, not the last.
    let idat =
      Array("IDAT".utf8) + [0x78, 0x01, 0x00, 100, 0, 155, 255] + [UInt8](repeating: 0, count: 100)
    let png =
      [137, 80, 78, 71, 13, 10, 26, 10] + chunk(ihdr) + chunk(idat) + chunk(Array("IEND".utf8))
    let path = folder.appendingPathComponent("bomb-\(width)x\(height).png")
    try Data(png).write(to: path)
    return path.path
  }

  /// A 2x2 binary PPM: only libvips's untrusted `ppmload` reads it.
  static func ppm(in folder: URL) throws -> String {
    let path = folder.appendingPathComponent("tiny.ppm")
    try Data(Array("P6\n2 2\n255\n".utf8) + [UInt8](repeating: 128, count: 12)).write(to: path)
    return path.path
  }

  static func file(_ name: String, bytes: [UInt8], in folder: URL) throws -> String {
    let path = folder.appendingPathComponent(name)
    try Data(bytes).write(to: path)
    return path.path
  }

  private static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xffff_ffff
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xedb8_8320 : 0) }
    }
    return ~crc
  }
}

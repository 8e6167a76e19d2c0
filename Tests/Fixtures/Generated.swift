import Foundation
import Vips

/// Small files made for one test, in a folder it gives: damaged and hostile inputs of a
/// chosen shape, where the fixtures of ``Fixture/badInputs`` are fixed.
public enum Generated {
  /// `chelsea.png` stored turned a quarter anticlockwise, with EXIF orientation 6
  /// (turn clockwise to show), as a camera held upright would write it.
  public static func exifRotatedJPEG(in folder: URL) throws -> String {
    let path = folder.appendingPathComponent("chelsea-exif6.jpg").path
    try FileManager.default.copyItem(atPath: Fixtures.path("chelsea-exif6.jpg"), toPath: path)
    return path
  }

  /// `side` x `side` RGB pixels of noise from a linear congruential generator seeded with
  /// `seed`: what compresses least, so a large image of it decodes slowly.
  public static func noise(side: Int, seed: UInt32) -> [UInt8] {
    var state = seed
    return (0..<(side * side * 3)).map { _ in
      state = state &* 1_664_525 &+ 1_013_904_223
      return UInt8(truncatingIfNeeded: state >> 24)
    }
  }

  /// A truncated JPEG: the first 60% of `hubble.jpg`.
  public static func truncatedJPEG(in folder: URL) throws -> String {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.photo("hubble.jpg")))
    let path = folder.appendingPathComponent("truncated.jpg")
    try bytes.prefix(bytes.count * 6 / 10).write(to: path)
    return path.path
  }

  /// `hubble.jpg` without its final end-of-image marker (`FF D9`), every scan whole: the
  /// file browsers show, as a download or a camera that stopped one write short leaves it.
  public static func jpegWithoutEndMarker(in folder: URL) throws -> String {
    let bytes = try Fixtures.bytes("hubble.jpg")
    precondition(bytes.suffix(2) == [0xFF, 0xD9], "hubble.jpg ends with its EOI marker")
    return try file("hubble-no-eoi.jpg", bytes: Array(bytes.dropLast(2)), in: folder)
  }

  /// `hubble.jpg`, whole, with a stray restart marker (`FF D3`) in the middle of its
  /// scan: libjpeg decodes it with a warning ("Corrupt JPEG data: premature end of data
  /// segment") and no error, every row below the marker flat grey (128): the scan ran out
  /// of data there.
  public static func jpegWithStrayMarker(in folder: URL) throws -> String {
    let bytes = try Fixtures.bytes("hubble.jpg")
    let scan = bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }!
    var middle = (scan + bytes.count) / 2
    while bytes[middle] == 0xFF || bytes[middle - 1] == 0xFF { middle += 1 }
    let damaged = Array(bytes[..<middle]) + [0xFF, 0xD3] + Array(bytes[middle...])
    return try file("hubble-stray-marker.jpg", bytes: damaged, in: folder)
  }

  /// `hubble.jpg` with 4 bytes of junk before its start-of-scan marker: libjpeg skips them
  /// with a warning ("Corrupt JPEG data: 4 extraneous bytes before marker 0xda") and
  /// decodes every pixel of the photo.
  public static func jpegWithExtraneousBytes(in folder: URL) throws -> String {
    let bytes = try Fixtures.bytes("hubble.jpg")
    let scan = bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }!
    let damaged = Array(bytes[..<scan]) + [0x00, 0x11, 0x22, 0x33] + Array(bytes[scan...])
    return try file("hubble-extraneous-bytes.jpg", bytes: damaged, in: folder)
  }

  /// `bytes` (a JPEG) cut to its first `fraction` and ended with an EOI marker (`FF D9`)
  /// all the same, as a tool that "repairs" a partial download leaves it.
  public static func jpegCutWithEndMarker(
    _ name: String, fraction: Double = 0.5, in folder: URL
  ) throws -> String {
    let bytes = try Fixtures.bytes(name)
    let cut = Array(bytes.prefix(Int(Double(bytes.count) * fraction))) + [0xFF, 0xD9]
    return try file("cut-with-eoi-\(name)", bytes: cut, in: folder)
  }

  /// A valid PNG of a few bytes whose header claims `width` x `height` RGB pixels.
  public static func bombPNG(in folder: URL, width: UInt32, height: UInt32) throws -> String {
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
  public static func ppm(in folder: URL) throws -> String {
    let path = folder.appendingPathComponent("tiny.ppm")
    try Data(Array("P6\n2 2\n255\n".utf8) + [UInt8](repeating: 128, count: 12)).write(to: path)
    return path.path
  }

  /// A file holding exactly `bytes`.
  public static func file(_ name: String, bytes: [UInt8], in folder: URL) throws -> String {
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

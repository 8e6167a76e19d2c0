import Foundation
import TestFixtures
import Testing

@testable import Vips

/// PNGs whose chunks declare more data than the file holds are refused from the lengths
/// alone: libpng would first allocate the declared length (a gigabyte for the 57-byte
/// files below, 4-5 s each in `vipsheader`).
@Suite("PNG chunks longer than the file")
struct PNGChunkCheckTests {
  /// A chunk as PNG lays it out: length, type, data, CRC of type and data.
  static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let typed = Array(type.utf8) + data
    return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
  }

  /// PNG's CRC-32 (ISO 3309, the polynomial reversed: 0xEDB88320), bit by bit.
  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }

  static func bigEndian(_ value: UInt32) -> [UInt8] {
    [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
  }

  /// A PNG encoded by libvips, with `inserted` put just after its IHDR chunk.
  static func png(inserting inserted: [UInt8]) throws -> [UInt8] {
    let encoded = try VipsImage(
      pixels: [UInt8](repeating: 0, count: 8 * 8 * 3), width: 8, height: 8, bands: 3
    ).pngData()
    let afterHeader = 8 + 25  // the signature, then IHDR: 13 bytes of data in a chunk
    return Array(encoded[..<afterHeader]) + inserted + Array(encoded[afterHeader...])
  }

  /// The signature, IHDR, then the 8 bytes of a chunk header claiming 1 GiB less 16, and
  /// 15 bytes of its data: 56 bytes, the file ending there.
  static func hostile(_ type: String) throws -> [UInt8] {
    let whole = try png(inserting: bigEndian(0x3FFF_FFF0) + Array(type.utf8))
    return Array(whole.prefix(8 + 25 + 8)) + Array("Comment\0\0\0\0\0\0\0\0".utf8)
  }

  static func reason(_ type: String) -> String {
    "the PNG chunk '\(type)' at byte 33 declares 1073741808 bytes of data, but the file "
      + "ends 15 bytes after its start; refused before decoding"
  }

  @Test(
    "a text, palette or unknown chunk claiming a gigabyte: refused, the file named once",
    arguments: ["iTXt", "zTXt", "tEXt", "sPLT", "iCCP", "prVt"])
  func aChunkLongerThanTheFileIsRefused(_ type: String) throws {
    let bytes = try Self.hostile(type)
    #expect(bytes.count == 56)
    let path = try Generated.file("huge-\(type).png", bytes: bytes, in: Fixtures.temporaryFolder())
    let expected = VipsError.truncated(source: path, message: Self.reason(type))
    #expect(throws: expected) { _ = try VipsImage(file: path) }
    #expect(throws: expected) {
      _ = try VipsImage.thumbnail(file: path, width: 64, options: .init())
    }
    #expect(throws: VipsError.truncated(source: "upload", message: Self.reason(type))) {
      _ = try VipsImage.decode(bytes: bytes, name: "upload") { _ in 1 }
    }
    #expect(
      expected.description
        == "\(path): the image data ends early (truncated): \(Self.reason(type))")
  }

  @Test func aLongChunkThatIsThereDecodesAsLibvipsDecodesIt() throws {
    let text = Array("Comment\0".utf8) + [UInt8](repeating: 0x61, count: 200_000)
    let bytes = try Self.png(inserting: Self.chunk("tEXt", text))
    let path = try Generated.file("long-text.png", bytes: bytes, in: Fixtures.temporaryFolder())
    let image = try VipsImage(file: path)
    #expect(image.header.width == 8 && image.header.height == 8)
    // libvips's own load of the PNG without the chunk: the same pixels.
    let plain = try VipsImage(bytes: Self.png(inserting: []))
    #expect(try image.writePixels() == plain.writePixels())
    #expect(PNGChunkCheck.overlongChunk(in: bytes) == nil)
  }

  @Test func aPNGCutInsideItsPixelsIsLeftToTheTruncationCheck() throws {
    let whole = try Fixtures.bytes("coffee.png")
    let cut = Array(whole.prefix(whole.count / 2))
    #expect(PNGChunkCheck.overlongChunk(in: cut) == nil)
    let path = try Generated.file("cut.png", bytes: cut, in: Fixtures.temporaryFolder())
    // Truncated, and by the end-marker check or libvips's own words (libvips's one error
    // buffer may hold other tests' messages too): never by a chunk's length.
    do {
      _ = try VipsImage.thumbnail(file: path, width: 64, options: .init())
      Issue.record("a PNG cut in half decoded")
    } catch {
      // Named from the file itself since the libvips message table: which chunk it
      // ends inside.
      guard error.kind == .truncated, error.source == path else {
        Issue.record("\(error)")
        return
      }
      #expect(!error.description.contains("PNG chunk"), "\(error)")
    }
  }

  @Test func theChunkTypeOfAnyByteIsShownInHex() throws {
    let bytes = try Self.png(inserting: Self.bigEndian(1 << 20) + [0x00, 0xFF, 0x41, 0x42])
    let chunk = try #require(PNGChunkCheck.overlongChunk(in: Array(bytes.prefix(60))))
    #expect(chunk == .init(type: "00 FF 41 42", offset: 33, declaredLength: 1 << 20, available: 19))
  }

  @Test func aDownloadsFirstBytesEndingInsideAChunkAreNotRefused() throws {
    let text = Array("Comment\0".utf8) + [UInt8](repeating: 0x61, count: 4000)
    let bytes = try Self.png(inserting: Self.chunk("tEXt", text))
    #expect(try HeaderProbe.probe(Array(bytes.prefix(100)), name: "http://host/a.png") == .needMore)
    guard case .header(let header) = try HeaderProbe.probe(bytes, name: "http://host/a.png") else {
      Issue.record("the whole PNG gave no header")
      return
    }
    #expect(header.width == 8)
  }
}

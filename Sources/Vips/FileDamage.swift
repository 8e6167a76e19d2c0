import Foundation

/// What is wrong with a file that failed to decode, from its own bytes where they show
/// it plainly: the PNG chunk whose CRC fails (and at which byte), a PNG chunk type that
/// is not letters, an IHDR that no PNG may have, a PLTE after the tRNS, a WebP or TIFF
/// that ends before its header says it does, a TIFF strip or tile that lies past the
/// file's end, a HEIF whose primary image is missing or of a type libheif does not read.
///
/// Asked only after libvips refused the file (``VipsError/fromLibvips(operation:source:)``),
/// so it costs nothing on the way that succeeds; nil when the bytes show nothing the
/// table of libvips's messages (``LibvipsMessage``) would not say.
enum FileDamage {
  /// A finding: its kind and what it is, in our words.
  struct Finding: Equatable, Sendable {
    var kind: VipsError.Kind
    var words: String
  }

  /// The finding for `bytes`, a whole file.
  static func inspect(_ bytes: [UInt8]) -> Finding? {
    if bytes.starts(with: PNGChunkCheck.signature) { return png(bytes) }
    if let finding = webp(bytes) { return finding }
    if let finding = tiffData(bytes) { return finding }
    if let finding = heif(bytes) { return finding }
    return nil
  }

  /// The finding for a file no loader recognises whose bytes still say which format it
  /// is: a TIFF whose first directory is past its end or unreadable, a PNG whose
  /// signature alone is damaged.
  static func unrecognised(_ bytes: [UInt8]) -> Finding? {
    if let finding = tiffDirectory(bytes) { return finding }
    let wrong = zip(bytes.prefix(8), PNGChunkCheck.signature).enumerated()
      .filter { $0.element.0 != $0.element.1 }.map { "\($0.offset)" }
    if bytes.count > 16, Array(bytes[12..<16]) == Array("IHDR".utf8), wrong.count <= 2 {
      return Finding(
        kind: .damaged,
        words: "the PNG is damaged: its 8-byte signature is wrong at byte "
          + wrong.joined(separator: " and "))
    }
    return nil
  }

  // MARK: PNG

  private static func png(_ bytes: [UInt8]) -> Finding? {
    var offset = PNGChunkCheck.signature.count
    var index = 0
    var sawImageData = false
    var sawTransparency = false
    while offset + 8 <= bytes.count {
      let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
      let typeBytes = Array(bytes[offset + 4..<offset + 8])
      let type = name(typeBytes)
      guard typeBytes.allSatisfy(isLetter) else {
        return Finding(
          kind: .damaged,
          words: "the PNG is damaged: the chunk at byte \(offset) has the type '\(type)', "
            + "which is not four letters")
      }
      let end = offset + 12 + length
      guard end <= bytes.count else {
        return Finding(
          kind: .truncated,
          words: "the PNG ends early: inside its chunk '\(type)' at byte \(offset)")
      }
      let stored = bytes[end - 4..<end].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
      if crc32(bytes[offset + 4..<end - 4]) != stored {
        return Finding(
          kind: .checksum,
          words: "the PNG data is damaged: the CRC of its chunk '\(type)' at byte \(offset) "
            + "does not match")
      }
      if index == 0, let finding = header(type: type, data: bytes[offset + 8..<end - 4]) {
        return finding
      }
      // libpng 1.6.39 refuses a palette after the transparency it qualifies ("unable to
      // read PNG header", its own reason only in a warning); PNG puts tRNS after PLTE.
      if type == "PLTE", sawTransparency {
        return Finding(
          kind: .damaged,
          words: "the PNG is damaged: its palette (PLTE) comes after its transparency "
            + "(tRNS), which PNG puts after the palette")
      }
      if type == "tRNS" { sawTransparency = true }
      if type == "IDAT" { sawImageData = true }
      if type == "IEND" {
        return sawImageData
          ? nil
          : Finding(
            kind: .damaged,
            words: "the PNG is damaged: it has no image data (no IDAT chunk before IEND)")
      }
      offset = end
      index += 1
    }
    return nil
  }

  /// What is wrong with the first chunk, which must be an IHDR of 13 bytes whose bit depth
  /// the colour type allows.
  private static func header(type: String, data: ArraySlice<UInt8>) -> Finding? {
    guard type == "IHDR", data.count == 13 else {
      return Finding(
        kind: .damaged, words: "the PNG is damaged: its first chunk is '\(type)', not IHDR")
    }
    let depth = Int(data[data.startIndex + 8])
    let colour = Int(data[data.startIndex + 9])
    let allowed: [Int: [Int]] = [
      0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16],
    ]
    guard let depths = allowed[colour] else {
      return Finding(
        kind: .damaged,
        words: "the PNG is damaged: its header (IHDR) gives colour type \(colour), "
          + "which PNG does not have")
    }
    guard depths.contains(depth) else {
      return Finding(
        kind: .damaged,
        words: "the PNG is damaged: its header (IHDR) gives a bit depth of \(depth), which "
          + "PNG does not allow for colour type \(colour)")
    }
    return nil
  }

  private static func isLetter(_ byte: UInt8) -> Bool {
    (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
  }

  /// A chunk type as a person reads it: its letters, or its bytes in hex.
  private static func name(_ type: [UInt8]) -> String {
    type.allSatisfy(isLetter)
      ? String(decoding: type, as: UTF8.self)
      : type.map { hex($0) }.joined(separator: " ")
  }

  private static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
  }

  private static let crcTable: [UInt32] = (0..<256).map { index in
    (0..<8).reduce(UInt32(index)) { value, _ in
      value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
    }
  }

  /// zlib's CRC-32, which PNG computes over each chunk's type and data.
  static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    ~bytes.reduce(~UInt32(0)) { crc, byte in
      crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
    }
  }

  // MARK: WebP

  /// A WebP cut short: its RIFF header gives the file's length.
  private static func webp(_ bytes: [UInt8]) -> Finding? {
    guard bytes.count >= 12, Array(bytes[0..<4]) == Array("RIFF".utf8),
      Array(bytes[8..<12]) == Array("WEBP".utf8)
    else { return nil }
    let declared = bytes[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) } + 8
    guard declared > bytes.count else { return nil }
    return Finding(
      kind: .truncated,
      words: "the WebP ends early: its header says \(declared) bytes, the file has "
        + "\(bytes.count)")
  }

  // MARK: TIFF

  /// A TIFF whose first directory puts a strip or tile (its image data) past the end of
  /// the file: the first one that starts or ends past it.
  private static func tiffData(_ bytes: [UInt8]) -> Finding? {
    guard bytes.count >= 8 else { return nil }
    let little = bytes[0] == 0x49 && bytes[1] == 0x49 && bytes[2] == 42 && bytes[3] == 0
    let big = bytes[0] == 0x4D && bytes[1] == 0x4D && bytes[2] == 0 && bytes[3] == 42
    guard little || big else { return nil }
    func number(_ at: Int, _ count: Int) -> Int? {
      guard at >= 0, at + count <= bytes.count else { return nil }
      let field = bytes[at..<at + count]
      return little
        ? field.reversed().reduce(0) { $0 << 8 | Int($1) }
        : field.reduce(0) { $0 << 8 | Int($1) }
    }
    guard let directory = number(4, 4), let entries = number(directory, 2) else { return nil }
    // Each tag's values (SHORT or LONG), read where the file holds them.
    var values: [Int: [Int]] = [:]
    for index in 0..<entries {
      let entry = directory + 2 + 12 * index
      guard let tag = number(entry, 2), let type = number(entry + 2, 2),
        let count = number(entry + 4, 4), [273, 279, 324, 325].contains(tag),
        type == 3 || type == 4, count > 0, count <= 1 << 20
      else { continue }
      let size = type == 3 ? 2 : 4
      guard let at = count * size <= 4 ? entry + 8 : number(entry + 8, 4) else { continue }
      let read = (0..<count).compactMap { number(at + $0 * size, size) }
      if read.count == count { values[tag] = read }
    }
    for (offsetsTag, countsTag, what) in [(273, 279, "strip"), (324, 325, "tile")] {
      guard let offsets = values[offsetsTag] else { continue }
      let counts = values[countsTag] ?? []
      for (index, offset) in offsets.enumerated() {
        let length = index < counts.count ? counts[index] : 0
        if offset >= bytes.count {
          return Finding(
            kind: .truncated,
            words: "the TIFF ends early: its \(what) \(index) is at byte \(offset), past the "
              + "file's end (\(bytes.count) bytes)")
        }
        if offset + length > bytes.count {
          return Finding(
            kind: .truncated,
            words: "the TIFF ends early: its \(what) \(index) (\(length) bytes at byte "
              + "\(offset)) runs past the file's end (\(bytes.count) bytes)")
        }
      }
    }
    return nil
  }

  /// A TIFF (by its signature) whose first directory lies past the end of the file, or
  /// holds fewer entries than it says.
  private static func tiffDirectory(_ bytes: [UInt8]) -> Finding? {
    guard bytes.count >= 8 else { return nil }
    let little = bytes[0] == 0x49 && bytes[1] == 0x49 && bytes[2] == 42 && bytes[3] == 0
    let big = bytes[0] == 0x4D && bytes[1] == 0x4D && bytes[2] == 0 && bytes[3] == 42
    guard little || big else { return nil }
    func number(_ at: Int, _ count: Int) -> Int {
      let field = bytes[at..<at + count]
      return little
        ? field.reversed().reduce(0) { $0 << 8 | Int($1) }
        : field.reduce(0) { $0 << 8 | Int($1) }
    }
    let directory = number(4, 4)
    guard directory + 2 <= bytes.count else {
      return Finding(
        kind: .truncated,
        words: "the TIFF ends early: its first directory is at byte \(directory), and the "
          + "file has \(bytes.count) bytes")
    }
    let entries = number(directory, 2)
    guard directory + 2 + entries * 12 <= bytes.count else {
      return Finding(
        kind: .truncated,
        words: "the TIFF ends early: inside its first directory, at byte \(directory)")
    }
    return Finding(
      kind: .damaged,
      words: "the TIFF is damaged: libtiff cannot read its first directory, at byte "
        + "\(directory)")
  }
}

extension FileDamage {
  /// The largest file read to look for damage after a refusal.
  static let largestInspected = 256 << 20

  /// The bytes of the regular file at `path`, nil when it is not one, cannot be read or
  /// is larger than ``largestInspected``.
  static func contents(ofFile path: String) -> [UInt8]? {
    var status = stat()
    guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
      Int(status.st_size) <= largestInspected
    else { return nil }
    return FileManager.default.contents(atPath: path).map { [UInt8]($0) }
  }
}

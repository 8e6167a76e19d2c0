extension FileDamage {
  /// The item types whose images the libheif that Debian 12 builds (1.15) decodes: HEVC,
  /// AV1, and the images made of them (a grid, an overlay, an identity transform).
  static let heifReadItemTypes: Set<String> = ["hvc1", "av01", "grid", "iovl", "iden"]

  /// What some item types that libheif 1.15 passes over are, in words.
  private static let heifItemTypeWords = [
    "unci": "an uncompressed image", "j2k1": "JPEG 2000", "jpeg": "JPEG",
    "vvc1": "VVC (H.266)", "avc1": "H.264 (AVC)", "evc1": "EVC", "mski": "a mask",
  ]

  /// A HEIF or AVIF (an ISO media file: `ftyp` first) whose primary image, the item its
  /// `pitm` box names, is not among the items of its `iinf` box (damaged), or is of a
  /// type libheif 1.15 does not read (unsupported): libheif skips such an item, then
  /// says only that `pitm` names a "non-existing image". Nil when the boxes do not show
  /// either plainly.
  static func heif(_ bytes: [UInt8]) -> Finding? {
    guard bytes.count >= 16, fourCC(bytes, 4) == "ftyp",
      let meta = heifBoxes(bytes, in: 0..<bytes.count).first(where: { $0.type == "meta" }),
      meta.body.count >= 4
    else { return nil }
    // meta is a full box: 4 bytes of version and flags before its boxes.
    let children = heifBoxes(bytes, in: meta.body.lowerBound + 4..<meta.body.upperBound)
    guard let pitm = children.first(where: { $0.type == "pitm" }), pitm.body.count >= 6,
      let iinf = children.first(where: { $0.type == "iinf" }), iinf.body.count >= 6,
      let primary = heifNumber(
        bytes, pitm.body, at: 4, size: bytes[pitm.body.lowerBound] == 0 ? 2 : 4)
    else { return nil }
    let countSize = bytes[iinf.body.lowerBound] == 0 ? 2 : 4
    let entries = heifBoxes(
      bytes, in: iinf.body.lowerBound + 4 + countSize..<iinf.body.upperBound)
    var types: [Int: String] = [:]
    for entry in entries where entry.type == "infe" && entry.body.count >= 4 {
      // Versions 2 and 3 name an item type; 2 has a 16-bit item id, 3 a 32-bit one.
      let version = bytes[entry.body.lowerBound]
      guard version == 2 || version == 3 else { continue }
      let idSize = version == 2 ? 2 : 4
      guard let id = heifNumber(bytes, entry.body, at: 4, size: idSize),
        entry.body.lowerBound + 4 + idSize + 2 + 4 <= entry.body.upperBound
      else { continue }
      types[id] = fourCC(bytes, entry.body.lowerBound + 4 + idSize + 2)
    }
    guard let type = types[primary] else {
      return Finding(
        kind: .damaged,
        words: "the HEIF is damaged: its primary image (item \(primary), named by its 'pitm' "
          + "box) is not among its items")
    }
    guard !heifReadItemTypes.contains(type) else { return nil }
    let what = heifItemTypeWords[type].map { "\($0) ('\(type)')" } ?? "of type '\(type)'"
    return Finding(
      kind: .unsupported,
      words: "the HEIF's primary image is \(what), which the libheif here does not read")
  }

  /// The boxes one after another in `range` of `bytes`: each one's type and its body
  /// (after its size and type, and a 64-bit size where it has one). Stops at the first
  /// box whose size does not fit the range.
  private static func heifBoxes(
    _ bytes: [UInt8], in range: Range<Int>
  ) -> [(type: String, body: Range<Int>)] {
    var found: [(String, Range<Int>)] = []
    var at = range.lowerBound
    while at + 8 <= range.upperBound {
      guard var size = heifNumber(bytes, at..<range.upperBound, at: 0, size: 4) else { break }
      var header = 8
      if size == 1 {
        guard let large = heifNumber(bytes, at..<range.upperBound, at: 8, size: 8) else { break }
        size = large
        header = 16
      } else if size == 0 {
        size = range.upperBound - at
      }
      guard size >= header, size <= range.upperBound - at else { break }
      found.append((fourCC(bytes, at + 4), at + header..<at + size))
      at += size
    }
    return found
  }

  /// The big-endian number of `size` bytes at `offset` into `range`, nil past its end
  /// (or when it does not fit an Int).
  private static func heifNumber(
    _ bytes: [UInt8], _ range: Range<Int>, at offset: Int, size: Int
  ) -> Int? {
    let start = range.lowerBound + offset
    guard start + size <= range.upperBound, start + size <= bytes.count else { return nil }
    let value = bytes[start..<start + size].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    return value <= UInt64(Int.max) ? Int(value) : nil
  }

  /// Four bytes as a box or item type: letters as they are, else each byte in hex.
  private static func fourCC(_ bytes: [UInt8], _ at: Int) -> String {
    guard at + 4 <= bytes.count else { return "" }
    let code = bytes[at..<at + 4]
    if code.allSatisfy({ (0x20...0x7E).contains($0) && $0 != 0x27 }) {
      return String(decoding: code, as: UTF8.self)
    }
    return code.map { byte in
      let digits = String(byte, radix: 16, uppercase: true)
      return byte < 16 ? "0" + digits : digits
    }.joined(separator: " ")
  }
}

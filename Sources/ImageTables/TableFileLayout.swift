import Foundation

/// The on-disk layout of a table: a pixel file and an index file, little-endian.
///
/// ```
/// <name>.table   header (page-aligned) | entry 0 | entry 1 | ...   (entryStride apart)
/// <name>.index   header (4096)         | record 0 | record 1 | ... (512 bytes each)
/// <name>.lock    empty; flock'd by the one writer
/// ```
///
/// Table header: magic `IMGTABLE`, layout version, style, slot width and height,
/// bytes per row, header size, entry stride, capacity, identity (random, shared with
/// the index), fingerprint length, a checksum of all these and the fingerprint (at 60),
/// and the fingerprint text. Index header: magic `IMGINDEX`, version, record size,
/// capacity, identity, and a checksum of those (at 32).
///
/// The capacity is the `maximumCount` the files were made for (the fingerprint's
/// `maximumCount` field too), and the shared file's geometry follows it; a reader maps
/// the files for it whatever its own format says. Files are never resized in place: a
/// writer whose `maximumCount` (or another of ``FormatFingerprint/settingsFields``)
/// differs copies the entries into new files (new identity, new inodes), as a reset
/// makes them.
///
/// Record i describes entry i. Its `sequence` only grows: 0 never used, 4k committed,
/// 4k+1 being written, 4k+2 removed (see `SharedFile.swift`); the record checksum covers
/// its fields and key with the sequence as seed, and the pixel checksum the entry's rows.
enum TableFileLayout {
  static let tableMagic: UInt64 = 0x454C_4241_5447_4D49  // "IMGTABLE"
  static let indexMagic: UInt64 = 0x5845_444E_4947_4D49  // "IMGINDEX"
  static let indexHeaderSize = 4096
  static let recordSize = 512
  static let keyOffset = 64
  /// Bytes of entity id and source version a record holds.
  static let keyCapacity = recordSize - keyOffset
  static let fingerprintOffset = 64

  /// Whether a record's sequence says it holds no entry: never used, or removed.
  static func isVacant(_ sequence: UInt64) -> Bool { sequence == 0 || sequence & 3 == 2 }

  /// Whether a record's sequence says a write is under way (or never finished).
  static func isMidWrite(_ sequence: UInt64) -> Bool { sequence & 1 == 1 }

  static func tableHeaderSize(fingerprintBytes: Int) -> Int {
    EntryLayout.roundUp(fingerprintOffset + fingerprintBytes, to: EntryLayout.pageSize)
  }

  static func recordOffset(_ slot: Int) -> Int { indexHeaderSize + slot * recordSize }

  /// The index header's checksum: of its first 32 bytes.
  static func indexHeaderChecksum(_ base: UnsafeMutableRawPointer) -> UInt64 {
    Checksum.hash(UnsafeRawBufferPointer(start: base, count: 32))
  }
}

/// Reads and writes little-endian fields at byte offsets of a mapped file.
extension UnsafeMutableRawPointer {
  @inline(__always)
  func field<T: FixedWidthInteger>(_ offset: Int, as type: T.Type = T.self) -> T {
    T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
  }

  @inline(__always)
  func setField<T: FixedWidthInteger>(_ offset: Int, _ value: T) {
    storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
  }
}

/// Why a table file's header cannot be used.
struct HeaderProblem: Error {
  let reason: String
  init(_ reason: String) { self.reason = reason }
}

/// The fixed part of the table file's header.
struct TableHeader: Equatable {
  var style: PixelStyle
  var width: Int
  var height: Int
  var bytesPerRow: Int
  var headerSize: Int
  var entryStride: Int
  var capacity: Int
  var identity: UInt64
  var fingerprint: String

  static let version: UInt32 = UInt32(ImageFormat.tableLayoutVersion)

  func write(to base: UnsafeMutableRawPointer) {
    base.setField(0, TableFileLayout.tableMagic)
    base.setField(8, Self.version)
    base.setField(12, style.code)
    base.setField(16, UInt32(width))
    base.setField(20, UInt32(height))
    base.setField(24, UInt32(bytesPerRow))
    base.setField(28, UInt32(headerSize))
    base.setField(32, UInt64(entryStride))
    base.setField(40, UInt64(capacity))
    base.setField(48, identity)
    let bytes = Array(fingerprint.utf8)
    base.setField(56, UInt32(bytes.count))
    bytes.withUnsafeBytes {
      (base + TableFileLayout.fingerprintOffset).copyMemory(
        from: $0.baseAddress!, byteCount: $0.count)
    }
    base.setField(60, Self.checksum(base, fingerprintLength: bytes.count))
  }

  /// The header's own checksum: its fields (bytes 0..<60) and the fingerprint.
  static func checksum(_ base: UnsafeMutableRawPointer, fingerprintLength: Int) -> UInt32 {
    let fields = Checksum.hash(UnsafeRawBufferPointer(start: base, count: 60))
    return UInt32(
      truncatingIfNeeded: Checksum.hash(
        UnsafeRawBufferPointer(
          start: base + TableFileLayout.fingerprintOffset, count: fingerprintLength), seed: fields))
  }

  /// Reads a header from the first `length` bytes of a mapped table file. Every number
  /// is checked before use; a problem names the field.
  static func read(from base: UnsafeMutableRawPointer, length: Int) -> Result<
    TableHeader, HeaderProblem
  > {
    guard length >= TableFileLayout.fingerprintOffset else {
      return .failure(HeaderProblem("the file is too short (\(length) bytes)"))
    }
    guard base.field(0, as: UInt64.self) == TableFileLayout.tableMagic else {
      return .failure(HeaderProblem("no table header"))
    }
    guard base.field(8, as: UInt32.self) == version else {
      return .failure(
        HeaderProblem(
          "layout version \(base.field(8, as: UInt32.self)), this build reads \(version)"))
    }
    let storedLength = Int(base.field(56, as: UInt32.self))
    guard storedLength <= length - TableFileLayout.fingerprintOffset else {
      return .failure(
        HeaderProblem(
          "field 'fingerprintLength' (offset 56) is \(storedLength), past the file's end"))
    }
    guard checksum(base, fingerprintLength: storedLength) == base.field(60, as: UInt32.self) else {
      return .failure(HeaderProblem("the header fails its checksum (field 'checksum', offset 60)"))
    }
    guard let style = PixelStyle(code: base.field(12)) else {
      return .failure(
        HeaderProblem("field 'style' holds unknown code \(base.field(12, as: UInt32.self))"))
    }
    func number<T: FixedWidthInteger>(
      _ name: String, _ offset: Int, _: T.Type, _ range: ClosedRange<Int>
    )
      -> Result<Int, HeaderProblem>
    {
      let raw = base.field(offset, as: T.self)
      guard let value = Int(exactly: raw), range.contains(value) else {
        return .failure(
          HeaderProblem(
            "field '\(name)' (offset \(offset)) is \(raw), outside \(range.lowerBound)...\(range.upperBound)"
          ))
      }
      return .success(value)
    }
    let side = 1...16_384
    let maximumEntryBytes = 16_384 * 16_384 * 4 + 4096
    let fields: [Result<Int, HeaderProblem>] = [
      number("width", 16, UInt32.self, side), number("height", 20, UInt32.self, side),
      number("bytesPerRow", 24, UInt32.self, 1...(16_384 * 4)),
      number("headerSize", 28, UInt32.self, TableFileLayout.fingerprintOffset...(1 << 20)),
      number("entryStride", 32, UInt64.self, 1...maximumEntryBytes),
      number("capacity", 40, UInt64.self, 1...10_000_000),
      number("fingerprintLength", 56, UInt32.self, 0...(1 << 20)),
    ]
    var values: [Int] = []
    for field in fields {
      switch field {
      case .success(let value): values.append(value)
      case .failure(let problem): return .failure(problem)
      }
    }
    let (width, height, bytesPerRow, headerSize, entryStride, capacity, fingerprintLength) = (
      values[0], values[1], values[2], values[3], values[4], values[5], values[6]
    )
    guard TableFileLayout.fingerprintOffset + fingerprintLength <= headerSize else {
      return .failure(
        HeaderProblem("field 'fingerprintLength' (\(fingerprintLength)) passes the header's end"))
    }
    guard headerSize <= length else {
      return .failure(
        HeaderProblem("field 'headerSize' (\(headerSize)) passes the file's end (\(length))"))
    }
    let fingerprint = String(
      decoding: UnsafeRawBufferPointer(
        start: base + TableFileLayout.fingerprintOffset, count: fingerprintLength),
      as: UTF8.self)
    let header = TableHeader(
      style: style, width: width, height: height, bytesPerRow: bytesPerRow,
      headerSize: headerSize, entryStride: entryStride, capacity: capacity,
      identity: base.field(48), fingerprint: fingerprint)
    let layout = EntryLayout(width: width, height: height, style: style)
    guard layout.bytesPerRow == bytesPerRow, layout.entryStride == entryStride else {
      return .failure(
        HeaderProblem(
          "fields 'bytesPerRow' (\(bytesPerRow)) and 'entryStride' (\(entryStride)) do not add up "
            + "for \(width)x\(height) \(style.rawValue)"))
    }
    return .success(header)
  }
}

/// One index record, read from or written to a mapped index file.
struct IndexRecord: Equatable {
  var sequence: UInt64
  var idHash: UInt64
  var entityID: String
  var sourceVersion: String
  var width: Int
  var height: Int
  var pixelChecksum: UInt64
  var writeOrder: UInt64

  /// Reads record `slot`; nil when it is empty, being written, or fails its checksum
  /// (with the reason in `problem`).
  static func read(slot: Int, from index: UnsafeMutableRawPointer) -> (
    IndexRecord?, problem: String?
  ) {
    let record = index + TableFileLayout.recordOffset(slot)
    let sequence: UInt64 = record.field(0)
    if TableFileLayout.isVacant(sequence) { return (nil, nil) }
    if TableFileLayout.isMidWrite(sequence) { return (nil, "its write never finished") }
    let idLength = Int(record.field(16, as: UInt32.self))
    let versionLength = Int(record.field(20, as: UInt32.self))
    guard idLength <= TableFileLayout.keyCapacity, versionLength <= TableFileLayout.keyCapacity,
      idLength + versionLength <= TableFileLayout.keyCapacity
    else {
      return (nil, "its record is damaged (key length)")
    }
    guard
      checksum(of: record, keyLength: idLength + versionLength, sequence: sequence)
        == record.field(48)
    else {
      return (nil, "its record fails its checksum")
    }
    let key = UnsafeRawBufferPointer(
      start: record + TableFileLayout.keyOffset, count: idLength + versionLength)
    return (
      IndexRecord(
        sequence: sequence, idHash: record.field(8),
        entityID: String(decoding: key.prefix(idLength), as: UTF8.self),
        sourceVersion: String(decoding: key.dropFirst(idLength), as: UTF8.self),
        width: Int(record.field(24, as: UInt32.self)),
        height: Int(record.field(28, as: UInt32.self)),
        pixelChecksum: record.field(32), writeOrder: record.field(40)),
      nil
    )
  }

  /// Writes every field but the sequence, then the checksum (seeded with `sequence`).
  func writeFields(slot: Int, to index: UnsafeMutableRawPointer) {
    let record = index + TableFileLayout.recordOffset(slot)
    var id = entityID
    var version = sourceVersion
    let idLength = id.withUTF8 { bytes in
      (record + TableFileLayout.keyOffset).copyMemory(
        from: bytes.baseAddress!, byteCount: bytes.count)
      return bytes.count
    }
    let versionLength = version.withUTF8 { bytes in
      if bytes.count > 0 {
        (record + TableFileLayout.keyOffset + idLength).copyMemory(
          from: bytes.baseAddress!, byteCount: bytes.count)
      }
      return bytes.count
    }
    record.setField(8, idHash)
    record.setField(16, UInt32(idLength))
    record.setField(20, UInt32(versionLength))
    record.setField(24, UInt32(width))
    record.setField(28, UInt32(height))
    record.setField(32, pixelChecksum)
    record.setField(40, writeOrder)
    record.setField(56, UInt64(0))
    record.setField(
      48, Self.checksum(of: record, keyLength: idLength + versionLength, sequence: sequence))
  }

  static func sequence(slot: Int, in index: UnsafeMutableRawPointer) -> UInt64 {
    (index + TableFileLayout.recordOffset(slot)).field(0)
  }

  static func setSequence(_ sequence: UInt64, slot: Int, in index: UnsafeMutableRawPointer) {
    (index + TableFileLayout.recordOffset(slot)).setField(0, sequence)
  }

  /// Whether the record at `record`, whose key is `keyLength` bytes, holds its checksum
  /// for `sequence`: its key, size and pixel checksum are as written with that sequence.
  @inline(__always)
  static func checksumHolds(
    _ record: UnsafeMutableRawPointer, keyLength: Int, sequence: UInt64
  ) -> Bool {
    checksum(of: record, keyLength: keyLength, sequence: sequence) == record.field(48)
  }

  private static func checksum(of record: UnsafeMutableRawPointer, keyLength: Int, sequence: UInt64)
    -> UInt64
  {
    let fields = Checksum.hash(UnsafeRawBufferPointer(start: record + 8, count: 40), seed: sequence)
    return Checksum.hash(
      UnsafeRawBufferPointer(start: record + TableFileLayout.keyOffset, count: keyLength),
      seed: fields)
  }
}

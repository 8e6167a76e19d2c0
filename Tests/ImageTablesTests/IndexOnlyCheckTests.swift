import Foundation
import Testing

@testable import ImageTables

/// The up-to-date check (`contains`) reads the index only; the first serve of an entry
/// and `verify` read its pixels (ARCHITECTURE.md, "Which read checks what").
@Suite("The up-to-date check reads the index only")
struct IndexOnlyCheckTests {
  static let format = makeFormat(width: 32, height: 32, maximumCount: 200)

  /// Bytes of `path` this process has mapped in (the Rss of its mappings, /proc/self/smaps).
  private func mappedBytes(of path: String) throws -> Int {
    // Read to its end with read(2): a /proc file reports no size.
    let descriptor = open("/proc/self/smaps", O_RDONLY)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else { break }
      bytes += chunk[0..<count]
    }
    let smaps = String(decoding: bytes, as: UTF8.self)
    var inFile = false
    var total = 0
    for line in smaps.split(separator: "\n") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      if let first = fields.first, first.contains("-"), fields.count >= 5 {
        inFile = fields.count >= 6 && fields[5...].joined(separator: " ") == path
      } else if inFile, fields.first == "Rss:", fields.count >= 2, let kilobytes = Int(fields[1]) {
        total += kilobytes * 1024
      }
    }
    return total
  }

  @Test func containsMapsNoPixelPageAndAFirstHitMapsThemAll() throws {
    let folder = try Folder.make()
    do {
      let writer = try ImageTable(format: Self.format, directory: folder)
      for number in 0..<150 { try writeEntry(writer, "photo-\(number)") }
      writer.close()
    }
    let reader = try ImageTable(
      format: Self.format, directory: folder, options: .init(readOnly: true))
    // The open read the header: that page and the kernel's fault-around (at most 64 KiB).
    let before = try mappedBytes(of: reader.tablePath)
    #expect(before <= 65_536)
    for number in 0..<150 {
      #expect(reader.contains(entityID: "photo-\(number)", sourceVersion: "v1"))
      #expect(!reader.contains(entityID: "photo-\(number)", sourceVersion: "v2"))
    }
    #expect(try mappedBytes(of: reader.tablePath) == before, "contains read pixel pages")
    for number in 0..<150 {
      let bitmap = try #require(reader.bitmap(entityID: "photo-\(number)", sourceVersion: "v1"))
      #expect(holdsExpectedPixels(bitmap))
    }
    let pixelBytes = 150 * Self.format.layout.bytesPerRow * Self.format.layout.height
    let after = try mappedBytes(of: reader.tablePath)
    #expect(after >= pixelBytes, "\(before) -> \(after) bytes mapped")
  }

  @Test func damagedPixelsAreFoundByTheHitAndVerifyDamagedRecordsByContains() throws {
    let folder = try Folder.make()
    let writer = try ImageTable(format: Self.format, directory: folder)
    for number in 0..<3 { try writeEntry(writer, "photo-\(number)") }
    writer.close()
    let slots = Dictionary(uniqueKeysWithValues: writer.entries().map { ($0.entityID, $0.slot) })
    // One pixel byte of photo-0 and the stored height of photo-1 flipped on disk.
    let table = try FileHandle(forUpdating: URL(fileURLWithPath: writer.tablePath))
    try table.seek(
      toOffset: UInt64(writer.headerSize + slots["photo-0"]! * Self.format.layout.entryStride + 5))
    try table.write(contentsOf: Data([0x5A]))
    try table.close()
    let index = try FileHandle(forUpdating: URL(fileURLWithPath: writer.indexPath))
    try index.seek(toOffset: UInt64(TableFileLayout.recordOffset(slots["photo-1"]!) + 28))
    try index.write(contentsOf: Data([31]))
    try index.close()
    let log = EventLog()
    let reader = try ImageTable(
      format: Self.format, directory: folder, options: .init(readOnly: true, report: log.report))
    // The index holds photo-0 as written: up to date; its pixels fail at the first hit.
    #expect(reader.contains(entityID: "photo-0", sourceVersion: "v1"))
    #expect(log.all.isEmpty)
    #expect(reader.bitmap(entityID: "photo-0", sourceVersion: "v1") == nil)
    #expect(
      log.all == [
        .corruptEntry(
          format: "thumb", slot: slots["photo-0"]!, entityID: "photo-0",
          reason: "its pixels fail their checksum")
      ])
    // photo-1's record fails its checksum: not up to date, and said so.
    #expect(!reader.contains(entityID: "photo-1", sourceVersion: "v1"))
    #expect(
      log.all.last
        == .corruptEntry(
          format: "thumb", slot: slots["photo-1"]!, entityID: "photo-1",
          reason: "its record fails its checksum"))
    #expect(reader.contains(entityID: "photo-2", sourceVersion: "v1"))
    let fresh = try ImageTable(
      format: Self.format, directory: folder, options: .init(readOnly: true))
    // A record that fails its checksum names no entity: its key is not trusted.
    #expect(
      fresh.verify().corrupt.map { "\($0.slot) \($0.entityID ?? "-") \($0.reason)" }.sorted()
        == [
          "\(slots["photo-0"]!) photo-0 its pixels fail their checksum",
          "\(slots["photo-1"]!) - its record fails its checksum",
        ].sorted())
  }
}

import Foundation
import ImageTables
import Testing

@testable import ImageToolCLI

@Suite("imgtool inspect, verify and bench")
struct TableCommandTests {
  /// A cache with two tables: three avatars and one thumbnail.
  private func makeCache() throws -> URL {
    let folder = try Paths.temporaryFolder()
    let avatar = try ImageFormat(
      name: "avatar.small", family: "avatar", width: 16, height: 16, scale: 2, maximumCount: 50)
    let thumb = try ImageFormat(
      name: "photo.thumb", family: "photo", width: 20, height: 10, style: .bgr32, maximumCount: 5)
    let avatars = try ImageTable(format: avatar, directory: folder)
    for id in ["ada.jpg", "bob.jpg", "cy.jpg"] {
      try avatars.write(entityID: id, sourceVersion: "v1") { canvas in
        for y in 0..<canvas.height {
          for x in 0..<canvas.width { canvas.set(x: x, y: y, RGBA(UInt8(x), UInt8(y), 9, 200)) }
        }
      }
    }
    let thumbs = try ImageTable(format: thumb, directory: folder)
    try thumbs.write(entityID: "sea.jpg", sourceVersion: "abc", width: 20, height: 7) { canvas in
      memset(canvas.bytes.baseAddress!, 0x40, canvas.bytes.count)
    }
    return folder
  }

  @Test func inspectListsTablesAndEntries() async throws {
    let cache = try makeCache()
    let result = await runTool(["inspect", cache.path])
    #expect(result.status == 0 && result.err.isEmpty)
    #expect(result.out.count == 6)
    #expect(
      result.out[0].hasPrefix(
        "\(cache.path)/avatar.small.table: avatar.small (family avatar), 32x32 bgra32, 3 of 50 entries (16 allocated), 4096 bytes per entry"
      ))
    #expect(result.out[1] == "  ada.jpg  version v1  32x32  slot 0")
    #expect(result.out[5] == "  sea.jpg  version abc  20x7  slot 0")
  }

  @Test func inspectJSONHasTheDocumentedKeys() async throws {
    let cache = try makeCache()
    let result = await runTool(["inspect", "--json", "--format", "photo.thumb", cache.path])
    #expect(result.status == 0)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.out.joined().utf8)) as? [String: Any])
    let tables = try #require(object["tables"] as? [[String: Any]])
    #expect(tables.count == 1)
    let table = tables[0]
    #expect(table["format"] as? String == "photo.thumb")
    #expect(table["entries"] as? Int == 1 && table["capacity"] as? Int == 5)
    // 20 pixels of 4 bytes = 80, padded to 128 a row; 10 rows: 1,280 bytes an entry.
    #expect(table["bytesPerEntry"] as? Int == 1280)
    // All 5 slots allocated at the first write (the first step is 8, capped at 5).
    #expect(table["fileBytes"] as? Int == (4096 + 5 * 1280) + (4096 + 5 * 512))
    let contents = try #require(table["contents"] as? [[String: Any]])
    #expect(contents.first?["entity"] as? String == "sea.jpg")
  }

  @Test func inspectNamesAMissingFormat() async throws {
    let result = await runTool(["inspect", "--format", "nope", try makeCache().path])
    #expect(result.status == 1)
    #expect(result.err.first?.hasSuffix("no table for format 'nope'") == true)
  }

  @Test func verifyPassesAWholeCacheAndNamesDamage() async throws {
    let cache = try makeCache()
    let clean = await runTool(["verify", cache.path])
    #expect(clean.status == 0)
    #expect(clean.out == ["\(cache.path): 2 tables, 4 entries checked, 0 corrupt"])
    // Damage the pixels of the second avatar (slot 1).
    let handle = try FileHandle(forUpdating: cache.appendingPathComponent("avatar.small.table"))
    try handle.seek(toOffset: UInt64(4096 + 1 * 4096 + 10))
    try handle.write(contentsOf: Data([1, 2, 3, 4]))
    try handle.close()
    let damaged = await runTool(["verify", cache.path])
    #expect(damaged.status == 1)
    #expect(
      damaged.err == [
        "imgtool: corrupt: avatar.small slot 1 ('bob.jpg'): its pixels fail their checksum",
        "imgtool: verify: `imgtool render --force` of the photos named draws their entries "
          + "again (a plain render reads the index only, not the pixels)",
      ])
    let json = await runTool(["verify", "--json", cache.path])
    #expect(json.status == 1)
    #expect(
      json.out == [
        #"{"checked":4,"corrupt":[{"format":"avatar.small","slot":1,"entity":"bob.jpg","reason":"its pixels fail their checksum"}]}"#
      ])
    // A folder with no tables (a mistyped path) is not a clean cache.
    let empty = try Paths.temporaryFolder()
    let none = await runTool(["verify", empty.path])
    #expect(none.status == 1)
    #expect(none.out.isEmpty)
    #expect(
      none.err == [
        "imgtool: \(empty.path): no tables here: not a cache, or nothing rendered into it yet "
          + "(imgtool render --cache \(empty.path) ...)"
      ])
  }

  @Test func benchPrintsFiguresAndRatios() async throws {
    let result = await runTool(["bench", "tables", "--json", "--entries", "200", "--hits", "2000"])
    #expect(result.status == 0)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.out.joined().utf8)) as? [String: Any])
    for key in [
      "hitNanosP50", "hitNanosP99", "rawFileRatio", "pngDecodeRatio", "bareMmapNanosP50",
      "hitOverBareRatio", "hitsPerSecondOneThread", "hitsPerSecondTwoThreads",
      "hitTwoThreadScaling", "bareTwoThreadScaling", "readerOpenNanosP50", "writerOpenNanosP50",
    ] {
      let value = try #require(object[key] as? Double, "\(key)")
      #expect(value > 0, "\(key)")
    }
    #expect(object["entries"] as? Int == 200)
    #expect(result.err.contains("bench: timing 2000 table hits"))
    let unknown = await runTool(["bench", "render"])
    #expect(unknown.status == 64)
  }
}

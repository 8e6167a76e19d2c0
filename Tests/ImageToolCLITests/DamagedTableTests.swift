import Foundation
import ImageTables
import Testing

/// Damage to a real rendered table: every number read from disk is checked, nothing
/// traps, a damaged table is named, and no entry is ever served with wrong pixels.
@Suite("Damaged rendered tables")
struct DamagedTableTests {
  struct Rendered {
    var folder: URL
    var tablePath: String
    var indexPath: String
    var table: [UInt8]
    var index: [UInt8]
    var fingerprintLength: Int
    /// Each entity's pixel bytes as rendered.
    var pixels: [String: [UInt8]]
  }

  /// Renders the bundled photos into the avatar family and keeps avatar.small's files.
  private func render() async throws -> Rendered {
    let work = try Paths.temporaryFolder()
    let cache = work.appendingPathComponent("cache")
    let result = await runTool([
      "render", "--family", "avatar", "--cache", cache.path, "--quiet", Paths.bundledPhotos.path,
    ])
    try #require(result.status == 0, "\(result.err)")
    let tablePath = cache.appendingPathComponent("avatar.small.table").path
    let table = try ImageTable(existingTableAt: tablePath)
    var pixels: [String: [UInt8]] = [:]
    for entry in table.entries() {
      let bitmap = try #require(
        table.bitmap(entityID: entry.entityID, sourceVersion: entry.sourceVersion))
      pixels[entry.entityID] = Array(bitmap.bytes)
    }
    try #require(pixels.count == 5)
    let tableBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: tablePath)))
    return Rendered(
      folder: cache, tablePath: tablePath, indexPath: table.indexPath, table: tableBytes,
      index: try [UInt8](Data(contentsOf: URL(fileURLWithPath: table.indexPath))),
      fingerprintLength: Int(tableBytes[56]) | Int(tableBytes[57]) << 8, pixels: pixels)
  }

  private func restore(_ rendered: Rendered, table: [UInt8]? = nil, index: [UInt8]? = nil) throws {
    try Data(table ?? rendered.table).write(to: URL(fileURLWithPath: rendered.tablePath))
    try Data(index ?? rendered.index).write(to: URL(fileURLWithPath: rendered.indexPath))
  }

  /// Opens the damaged table read-only as `verify` does. Returns whether the damage
  /// was named (an error naming the file, or a corrupt entry); records a failure if
  /// any entry is served with pixels other than those rendered.
  private func check(_ rendered: Rendered, _ what: String) -> Bool {
    let table: ImageTable
    do {
      table = try ImageTable(existingTableAt: rendered.tablePath)
    } catch {
      let text = "\(error)"
      #expect(
        text.contains("avatar.small.table") || text.contains("avatar.small.index"),
        "\(what): \(text)")
      return true
    }
    var named = false
    for entry in table.entries() {
      guard let bitmap = table.bitmap(entityID: entry.entityID, sourceVersion: entry.sourceVersion)
      else {
        named = true  // a corrupt entry: reported and a miss
        continue
      }
      #expect(Array(bitmap.bytes) == rendered.pixels[entry.entityID], "\(what): wrong pixels")
    }
    let report = table.verify()
    return named || !report.corrupt.isEmpty || table.entries().count < rendered.pixels.count
  }

  @Test func everyHeaderByteSetToFewValuesIsNamedAndNeverTraps() async throws {
    let rendered = try await render()
    let meaningful = 64 + rendered.fingerprintLength
    var trials = 0
    var unnamed: [String] = []
    // Every byte the header uses, to four values; past the fingerprint (padding that is
    // never read) every 32nd byte, which must change nothing that is served.
    for offset in Array(0..<meaningful) + Array(stride(from: meaningful, to: 4096, by: 32)) {
      let values: [UInt8] =
        offset < meaningful ? [0x00, 0x80, 0xFF, rendered.table[offset] ^ 0x01] : [0x80]
      for value in values where value != rendered.table[offset] {
        var damaged = rendered.table
        damaged[offset] = value
        try restore(rendered, table: damaged)
        trials += 1
        let named = check(rendered, "table byte \(offset) = \(value)")
        if offset < meaningful, !named { unnamed.append("table byte \(offset) = \(value)") }
      }
    }
    #expect(unnamed.isEmpty, "damage not named: \(unnamed.prefix(10))")
    // A writer opening the damaged table names the field and starts it again, empty.
    var damaged = rendered.table
    damaged[47] = 0x80  // the capacity's high byte: the old crash in Int(UInt64)
    try restore(rendered, table: damaged)
    let verify = await runTool(["verify", rendered.folder.path])
    #expect(verify.status == 1)
    #expect(verify.err.contains { $0.contains("avatar.small") && $0.contains("checksum") })
    try restore(rendered)
    #expect(trials > 4 * meaningful - meaningful)
  }

  @Test func indexHeaderAndFirstRecordsSetToFewValuesNeverServeWrongPixels() async throws {
    let rendered = try await render()
    var unnamed: [String] = []
    for offset in Array(0..<40) + Array(4096..<(4096 + 2 * 512)) {
      for value: UInt8 in [0x00, 0x80, 0xFF] where value != rendered.index[offset] {
        var damaged = rendered.index
        damaged[offset] = value
        try restore(rendered, index: damaged)
        let named = check(rendered, "index byte \(offset) = \(value)")
        // A record's checksum covers bytes 8..<48 and its key; bytes 56..<64 and those
        // past the key are unused. A sequence word damaged to "never used" or "removed"
        // is a silent miss (nothing wrong is served; see the closing note).
        let record = 4096 + (offset - 4096) / 512 * 512
        let inRecord = offset - record
        let keyLength = Int(rendered.index[record + 16]) + Int(rendered.index[record + 20])
        var sequence: UInt64 = 0
        for byte in 0..<8 { sequence |= UInt64(damaged[record + byte]) << (8 * UInt64(byte)) }
        let used =
          offset < 40
          || (inRecord < 8 && sequence != 0 && sequence & 3 != 2)
          || (8..<48).contains(inRecord) || (64..<(64 + keyLength)).contains(inRecord)
        if used, !named { unnamed.append("index byte \(offset) = \(value)") }
      }
    }
    #expect(unnamed.isEmpty, "damage not named: \(unnamed.prefix(10))")
    try restore(rendered)
  }

  /// Found by Scripts/damage-sweep: a record failing its checksum made `verify` exit 1,
  /// while `inspect` listed one entry fewer and exited 0, `merge` copied the others and
  /// exited 0, and `export` of that entity suggested another id: none named the table.
  @Test func aRecordFailingItsChecksumIsNamedByEveryCommand() async throws {
    let rendered = try await render()
    let entry = try #require(try ImageTable(existingTableAt: rendered.tablePath).entries().first)
    var damaged = rendered.index
    damaged[4096 + entry.slot * 512 + 24] ^= 0x40  // the record's width, under its checksum
    try restore(rendered, index: damaged)
    let cache = rendered.folder.path
    let named = { (lines: [String]) in
      lines.contains { $0.contains("table 'avatar.small'") && $0.contains("fails its checksum") }
    }
    let verify = await runTool(["verify", cache])
    #expect(verify.status == 1)
    let inspect = await runTool(["inspect", cache])
    #expect(inspect.status == 0)
    #expect(named(inspect.err), "inspect: \(inspect.err)")
    let work = rendered.folder.deletingLastPathComponent()
    let export = await runTool([
      "export", "--format", "avatar.small", "--entity", entry.entityID, "--cache", cache,
      work.appendingPathComponent("out.png").path,
    ])
    #expect(export.status == 1)
    #expect(named(export.err), "export: \(export.err)")
    let last = export.err.last ?? ""
    #expect(last.contains("holds no readable entry for '\(entry.entityID)'"), "\(last)")
    #expect(!last.contains("did you mean"), "\(last)")
    let merged = work.appendingPathComponent("merged")
    let merge = await runTool(["merge", "--cache", merged.path, cache])
    #expect(merge.status == 1)
    #expect(
      merge.err.contains { $0.contains("avatar.small") && $0.contains("fails its checksum") },
      "merge: \(merge.err)")
    #expect(!FileManager.default.fileExists(atPath: merged.path))
    try restore(rendered)
  }

  /// Found by Scripts/damage-sweep: an index cut at a record boundary past the last entry
  /// (no entry lost, the table's later slots left without records) passed the render's
  /// up-to-date check, which said nothing and left it, so `verify` went on exiting 1.
  @Test func aRenderNamesAndClearsDamageNoPhotoOfItReads() async throws {
    let rendered = try await render()
    let slots = try ImageTable(existingTableAt: rendered.tablePath).entries().map(\.slot)
    let cut = 4096 + (slots.max()! + 1) * 512
    try #require(cut < rendered.index.count, "slots past the entries")
    try restore(rendered, index: Array(rendered.index.prefix(cut)))
    let cache = rendered.folder.path
    #expect(await runTool(["verify", cache]).status == 1)
    let again = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--quiet", Paths.bundledPhotos.path,
    ])
    #expect(again.status == 0)
    #expect(
      again.err.contains { $0.contains("table 'avatar.small'") && $0.contains("cut short") },
      "\(again.err)")
    let verify = await runTool(["verify", cache])
    #expect(verify.status == 0, "\(verify.err)")
    try restore(rendered)
  }

  @Test func randomTruncationsNeverTrapAndNeverServeWrongPixels() async throws {
    let rendered = try await render()
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<60 {
      let tableLength = Int.random(in: 0...rendered.table.count, using: &generator)
      try restore(rendered, table: Array(rendered.table.prefix(tableLength)))
      _ = check(rendered, "table cut at \(tableLength)")
      let indexLength = Int.random(in: 0...rendered.index.count, using: &generator)
      try restore(rendered, index: Array(rendered.index.prefix(indexLength)))
      _ = check(rendered, "index cut at \(indexLength)")
    }
    // A writer reopens a cut table, reports it and goes on working.
    try restore(rendered, table: Array(rendered.table.prefix(5000)))
    let format = try ImageFormat(
      name: "avatar.small", family: "avatar", width: 16, height: 16, scale: 2, maximumCount: 50,
      pipeline: "fill(crop: attention) | circle")
    let writer = try ImageTable(format: format, directory: rendered.folder)
    try writer.write(entityID: "new", sourceVersion: "v1") { canvas in
      memset(canvas.bytes.baseAddress!, 7, canvas.bytes.count)
    }
    #expect(writer.bitmap(entityID: "new", sourceVersion: "v1")?.bytes.first == 7)
  }
}

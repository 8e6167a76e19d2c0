import CacheSharding
import Foundation
import ImageTables
import Testing

@Suite("CacheMerge")
struct MergeTests {
  let formats = [makeFormat("t.small"), makeFormat("t.large", width: 12, height: 9)]

  @Test("three caches merge into one holding each entry once, byte for byte")
  func mergesEntryForEntry() throws {
    let root = try Folder.make()
    let ids = (0..<12).map { $0 % 4 == 0 ? "small-\($0).jpg" : "photo-\($0).jpg" }
    var inputs: [URL] = []
    for shard in 0..<3 {
      let mine = ids.filter { Shard.index(of: $0, count: 3) == shard }.map { ($0, "v-\($0)") }
      inputs.append(
        try makeCache(
          root.appendingPathComponent("shard-\(shard)"), formats: formats, entries: mine))
    }
    let whole = try makeCache(
      root.appendingPathComponent("whole"), formats: formats, entries: ids.map { ($0, "v-\($0)") })
    let output = root.appendingPathComponent("out/merged")
    let report = try CacheMerge.merge(inputs, into: output)

    #expect(report.createdOutput && report.atomic)
    #expect(report.entriesWritten == 24)
    #expect(report.formats.map(\.name) == ["t.large", "t.small"])
    #expect(report.formats.allSatisfy { $0.entries == 12 && $0.duplicates == 0 })
    // Rows of 12 and 6 pixels pad to 64 bytes: 9 rows and 5 rows an entry.
    #expect(report.bytesCopied == 12 * (9 * 64) + 12 * (5 * 64))
    let merged = try CacheContents(output)
    #expect(merged == (try CacheContents(whole)))
    #expect(merged.tables["t.small"]?["small-4.jpg"]?.width == 3)
    #expect(merged.tables["t.small"]?["photo-1.jpg"]?.bytes.count == 5 * 64)
    // Nothing is left beside the output.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("out").path)
        == ["merged"])
    // The merged tables verify and take a writer.
    for path in try ImageTable.tableFiles(in: output) {
      let table = try ImageTable(existingTableAt: path, options: .init())
      #expect(table.verify().corrupt.isEmpty)
    }
  }

  @Test("the same entity at the same version is taken once; at two versions it is refused")
  func duplicatesAndConflicts() throws {
    let root = try Folder.make()
    let a = try makeCache(
      root.appendingPathComponent("a"), formats: formats, entries: [("x.jpg", "1"), ("y.jpg", "1")])
    let b = try makeCache(
      root.appendingPathComponent("b"), formats: formats, entries: [("y.jpg", "1"), ("z.jpg", "1")])
    let c = try makeCache(
      root.appendingPathComponent("c"), formats: formats, entries: [("z.jpg", "2")])
    let output = root.appendingPathComponent("merged")
    let report = try CacheMerge.merge([a, b], into: output)
    #expect(report.formats.map(\.duplicates) == [1, 1])
    #expect(report.formats.map(\.entries) == [3, 3])
    #expect(
      try CacheContents(output).tables["t.small"]?.keys.sorted() == ["x.jpg", "y.jpg", "z.jpg"])

    let fresh = root.appendingPathComponent("fresh")
    let error = #expect(throws: MergeError.self) { try CacheMerge.merge([a, b, c], into: fresh) }
    #expect(
      error?.description
        == "entity 'z.jpg' (format 't.large') is at version 1 in \(b.path) and at version 2 in "
        + "\(c.path); render its shard again from the current photo")
    #expect(!FileManager.default.fileExists(atPath: fresh.path))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() == [
        "a", "b", "c", "merged",
      ])
  }

  @Test("a table of another fingerprint is refused, naming the format and the fields")
  func otherFingerprintRefused() throws {
    let root = try Folder.make()
    let a = try makeCache(root.appendingPathComponent("a"), formats: formats, entries: [("x", "1")])
    let otherPipeline = try makeCache(
      root.appendingPathComponent("b"),
      formats: [makeFormat("t.small", pipeline: "fill | circle"), formats[1]],
      entries: [("y", "1")])
    let otherProcessor = try makeCache(
      root.appendingPathComponent("c"), formats: formats, entries: [("y", "1")],
      processors: ["fill@2"])
    let otherSize = try makeCache(
      root.appendingPathComponent("d"),
      formats: [makeFormat("t.small", width: 7, maximumCount: 60), formats[1]],
      entries: [("y", "1")])
    let output = try makeCache(
      root.appendingPathComponent("out"), formats: formats, entries: [("old", "1")])
    let before = try snapshot(output)

    let cases: [(URL, String, [String])] = [
      (otherPipeline, "t.small", ["pipeline"]), (otherProcessor, "t.large", ["processors"]),
      (otherSize, "t.small", ["width", "maximumCount"]),
    ]
    for (input, format, fields) in cases {
      let error = #expect(throws: MergeError.self) {
        try CacheMerge.merge([a, input], into: output)
      }
      #expect(
        error == .formatDiffers(format: format, path: input.path, reference: a.path, fields: fields)
      )
      #expect(
        error?.description.hasPrefix(
          "format '\(format)' in \(input.path) differs from the one in \(a.path) in \(fields.joined(separator: ", "));"
        ) == true)
      #expect(try snapshot(output) == before)
    }
    // The output's own tables are held to the same fingerprint.
    let error = #expect(throws: MergeError.self) {
      try CacheMerge.merge([otherPipeline], into: output)
    }
    #expect(
      error
        == .formatDiffers(
          format: "t.small", path: output.path, reference: otherPipeline.path, fields: ["pipeline"])
    )
    #expect(try snapshot(output) == before)
  }

  @Test("a format missing from one cache is refused")
  func missingFormatRefused() throws {
    let root = try Folder.make()
    let a = try makeCache(root.appendingPathComponent("a"), formats: formats, entries: [("x", "1")])
    let b = try makeCache(
      root.appendingPathComponent("b"), formats: [formats[0]], entries: [("y", "1")])
    let error = #expect(throws: MergeError.self) {
      try CacheMerge.merge([a, b], into: root.appendingPathComponent("out"))
    }
    #expect(error == .formatMissing(format: "t.large", missingFrom: b.path, presentIn: a.path))
    let empty = root.appendingPathComponent("empty")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    #expect(throws: MergeError.notACache(path: empty.path, reason: "it holds no tables (*.table)"))
    {
      try CacheMerge.merge([a, empty], into: root.appendingPathComponent("out"))
    }
    #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("out").path))
  }

  @Test("more entities than maximumCount are reported, and nothing is written")
  func tooManyEntries() throws {
    let root = try Folder.make()
    let small = [makeFormat("t.small", maximumCount: 4)]
    let a = try makeCache(
      root.appendingPathComponent("a"), formats: small,
      entries: [("1", "v"), ("2", "v"), ("3", "v")])
    let b = try makeCache(
      root.appendingPathComponent("b"), formats: small,
      entries: [("3", "v"), ("4", "v"), ("5", "v")])
    let output = try makeCache(root.appendingPathComponent("out"), formats: small, entries: [])
    let before = try snapshot(output)
    let error = #expect(throws: MergeError.self) { try CacheMerge.merge([a, b], into: output) }
    #expect(error == .tooManyEntries(format: "t.small", count: 5, maximumCount: 4))
    #expect(
      error?.description
        == "format 't.small': the merge holds 5 entities but the format keeps at most 4 "
        + "(maximumCount); 1 would be dropped, so nothing was merged: raise maximumCount in the "
        + "manifest and render again")
    #expect(try snapshot(output) == before)
  }

  @Test("into an existing cache: its other entries stay, the inputs' versions replace its own")
  func intoExistingOutput() throws {
    let root = try Folder.make()
    let output = try makeCache(
      root.appendingPathComponent("out"), formats: formats,
      entries: [("kept.jpg", "1"), ("changed.jpg", "1")])
    let input = try makeCache(
      root.appendingPathComponent("a"), formats: formats,
      entries: [("changed.jpg", "2"), ("new.jpg", "1")])
    // A table of a format the inputs do not have stays as it is.
    try makeCache(output, formats: [makeFormat("t.extra")], entries: [("e.jpg", "1")])
    let extra = try CacheContents(output).tables["t.extra"]
    // A reader of the old output keeps its bytes through the merge.
    let oldTable = try ImageTable(
      existingTableAt: ImageTable.paths(formatName: "t.small", directory: output).table)
    let oldBitmap = try #require(oldTable.bitmap(entityID: "changed.jpg", sourceVersion: "1"))
    let oldBytes = Array(oldBitmap.bytes)

    let report = try CacheMerge.merge([input], into: output)
    #expect(!report.createdOutput)
    #expect(report.formats.map(\.keptFromOutput) == [1, 1])
    #expect(report.formats.map(\.fromInputs) == [2, 2])
    let merged = try CacheContents(output).tables["t.small"]!
    #expect(merged.mapValues(\.version) == ["kept.jpg": "1", "changed.jpg": "2", "new.jpg": "1"])
    let expected = try CacheContents(
      makeCache(
        root.appendingPathComponent("expected"), formats: formats,
        entries: [("kept.jpg", "1"), ("changed.jpg", "2"), ("new.jpg", "1")]))
    var after = try CacheContents(output)
    #expect(after.tables.removeValue(forKey: "t.extra") == extra)
    #expect(after == expected)
    #expect(Array(oldBitmap.bytes) == oldBytes)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
        == ["a", "expected", "out"])
    // The lock files are the ones writers had; a writer opens the merged table.
    let writer = try ImageTable(
      existingTableAt: ImageTable.paths(formatName: "t.small", directory: output).table,
      options: .init())
    #expect(writer.contains(entityID: "new.jpg", sourceVersion: "1"))
  }

  @Test("merging into the same output again and again works, and readers open it at once")
  func againAndAgainIntoOneOutput() throws {
    let root = try Folder.make()
    let input = try makeCache(
      root.appendingPathComponent("a"), formats: formats, entries: [("a.jpg", "1")])
    let output = root.appendingPathComponent("out")
    for round in 1...3 {
      let report = try CacheMerge.merge([input], into: output)
      #expect(report.createdOutput == (round == 1))
      // A reader opens the merged table with the tables' own shared file: no writer runs,
      // and none is needed to make that file again.
      let reader = try ImageTable(
        existingTableAt: ImageTable.paths(formatName: "t.small", directory: output).table)
      #expect(reader.contains(entityID: "a.jpg", sourceVersion: "1"))
    }
  }

  @Test("a writer on the output makes the merge fail at once (or wait), writing nothing")
  func busyOutput() throws {
    let root = try Folder.make()
    let input = try makeCache(
      root.appendingPathComponent("a"), formats: formats, entries: [("x", "1")])
    let output = try makeCache(root.appendingPathComponent("out"), formats: formats, entries: [])
    let lock = ImageTable.paths(formatName: "t.large", directory: output).lock
    do {
      let writer = try ImageTable(
        format: formats[1], processorIdentifiers: ["fill@1"], directory: output)
      // Taken with the writer open: its open stamps its session in the index header
      // (WriterSummary), and the merge must change nothing after that.
      let before = try snapshot(output)
      let error = #expect(throws: MergeError.self) { try CacheMerge.merge([input], into: output) }
      #expect(error == .outputBusy(path: lock))
      #expect(try snapshot(output) == before)
      withExtendedLifetime(writer) {}
    }
    #expect(try CacheMerge.merge([input], into: output).entriesWritten == 2)
  }

  @Test("a damaged entry in an input is named, and nothing is written")
  func corruptInput() throws {
    let root = try Folder.make()
    let input = try makeCache(
      root.appendingPathComponent("a"), formats: [formats[0]], entries: [("x.jpg", "1")])
    let path = ImageTable.paths(formatName: "t.small", directory: input).table
    let table = try ImageTable(existingTableAt: path)
    let bitmap = try #require(table.bitmap(entityID: "x.jpg", sourceVersion: "1"))
    let offset = try #require(
      (try Data(contentsOf: URL(fileURLWithPath: path))).range(of: Data(bitmap.bytes.prefix(24))))
    var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    bytes[offset.lowerBound + 5] ^= 0xFF
    try bytes.write(to: URL(fileURLWithPath: path))
    let output = root.appendingPathComponent("out")
    let error = #expect(throws: MergeError.self) { try CacheMerge.merge([input], into: output) }
    guard case .corruptEntry(let format, let where_, let entity, _) = error else {
      Issue.record("expected a corrupt entry, got \(String(describing: error))")
      return
    }
    #expect(format == "t.small" && where_ == input.path && entity == "x.jpg")
    #expect(!FileManager.default.fileExists(atPath: output.path))
  }

  /// Found by Scripts/damage-sweep: a record failing its checksum was left out of the
  /// input's list of entries, so the merge wrote the rest and exited 0 without a word.
  @Test("a record failing its checksum in an input is named, and nothing is written")
  func recordFailingItsChecksum() throws {
    let root = try Folder.make()
    let input = try makeCache(
      root.appendingPathComponent("a"), formats: [formats[0]],
      entries: [("x.jpg", "1"), ("y.jpg", "1")])
    let paths = ImageTable.paths(formatName: "t.small", directory: input)
    let entries = try ImageTable(existingTableAt: paths.table).entries()
    let slot = try #require(entries.first { $0.entityID == "y.jpg" }?.slot)
    // The low byte of the record's width (offset 24 of record `slot`), under its checksum.
    var index = try Data(contentsOf: URL(fileURLWithPath: paths.index))
    index[4096 + slot * 512 + 24] ^= 0x40
    try index.write(to: URL(fileURLWithPath: paths.index))
    let output = root.appendingPathComponent("out")
    let error = #expect(throws: MergeError.self) { try CacheMerge.merge([input], into: output) }
    guard case .corruptEntry(let format, let where_, _, let reason) = error else {
      Issue.record("expected a corrupt entry, got \(String(describing: error))")
      return
    }
    #expect(format == "t.small" && where_ == input.path)
    #expect(reason == "its record fails its checksum")
    #expect(!FileManager.default.fileExists(atPath: output.path))
  }
}

import Foundation
import ImageTables
import TestFixtures
import Testing

/// Table, index and shared files cut short (an interrupted copy, a full disk) at slot
/// boundaries and inside slots, then every command run on them as a user runs it (the
/// built `imgtool`, one process each): none traps, each names the damaged table, `verify`
/// exits 1 where the entries were lost, and a render clears the damage.
@Suite("Tables cut short, through every command")
struct CutShortTableTests {
  /// One way of cutting a file: which file of avatar.small, to what length.
  struct Cut: CustomStringConvertible {
    var file: String
    var length: Int
    var place: String
    /// Whether entries are lost (then `verify` exits 1 and every command names the table).
    var losesEntries: Bool
    var description: String { "\(file) cut to \(length) bytes (\(place))" }
  }

  struct Run {
    var status: Int32
    var reason: Process.TerminationReason
    var out: String
    var err: String
  }

  /// Runs the built imgtool, keeping how it ended (a signal is a crash).
  private func run(_ arguments: [String]) throws -> Run {
    let process = Process()
    process.executableURL = Paths.executable
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(
      status: process.terminationStatus, reason: process.terminationReason,
      out: String(decoding: outData, as: UTF8.self), err: String(decoding: errData, as: UTF8.self))
  }

  /// 12 photos of distinct bytes (the fixtures' JPEGs with bytes after their end).
  private func photos(in folder: URL) throws -> URL {
    let photos = folder.appendingPathComponent("photos")
    try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
    let sources = try ["rocket.jpg", "hubble.jpg"].map {
      try Data(contentsOf: URL(fileURLWithPath: Paths.bundled($0)))
    }
    for number in 0..<12 {
      var bytes = sources[number % 2]
      bytes.append(contentsOf: [0, 0, UInt8(number), 0xA5])
      try bytes.write(to: photos.appendingPathComponent(String(format: "p%02d.jpg", number)))
    }
    return photos
  }

  private func field(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
    (0..<count).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
  }

  @Test("every command on a table, index or shared file cut short: no crash, the table named")
  func everyCommandOnFilesCutShort() async throws {
    try await ComputeExecutor.run {
      let work = try Paths.temporaryFolder()
      let photos = try photos(in: work)
      let cache = work.appendingPathComponent("cache")
      let render = ["render", "--family", "avatar", "--cache", cache.path, "--quiet", photos.path]
      let first = try run(render)
      try #require(first.status == 0, "\(first.err)")
      let names = ["table", "index", "shared"]
      let path = { (file: String) in cache.appendingPathComponent("avatar.small.\(file)").path }
      let original = try Dictionary(
        uniqueKeysWithValues: names.map {
          ($0, try [UInt8](Data(contentsOf: URL(fileURLWithPath: path($0)))))
        })
      let reference = try ImageTable(existingTableAt: path("table"))
      let entries = reference.entries()
      try #require(entries.count == 12)
      var pixels: [String: [UInt8]] = [:]
      for entry in entries {
        pixels[entry.entityID] = try #require(
          reference.bitmap(entityID: entry.entityID, sourceVersion: entry.sourceVersion)
        ).bytes.map { $0 }
      }
      let table = original["table"]!
      let headerSize = field(table, 28, 4)
      let stride = field(table, 32, 8)
      try #require(table.count == headerSize + 16 * stride, "a table of 16 slots")
      let cuts = [
        Cut(file: "table", length: 100, place: "inside the header", losesEntries: true),
        Cut(file: "table", length: headerSize + 4 * stride, place: "at slot 4", losesEntries: true),
        Cut(
          file: "table", length: headerSize + 6 * stride + stride / 2, place: "inside slot 6",
          losesEntries: true),
        Cut(file: "index", length: 2000, place: "inside the header", losesEntries: true),
        Cut(file: "index", length: 4096 + 5 * 512, place: "at record 5", losesEntries: true),
        Cut(
          file: "index", length: 4096 + 9 * 512 + 100, place: "inside record 9", losesEntries: true),
        Cut(
          file: "shared", length: original["shared"]!.count / 2, place: "half", losesEntries: false),
        Cut(file: "shared", length: 100, place: "inside the header", losesEntries: false),
      ]
      let exported = work.appendingPathComponent("out.png").path
      let lastID = entries.last!.entityID
      for (number, cut) in cuts.enumerated() {
        for force in [false, true] {
          for name in names {
            try Data(original[name]!).write(to: URL(fileURLWithPath: path(name)))
          }
          #expect(truncate(path(cut.file), off_t(cut.length)) == 0)
          let merged = work.appendingPathComponent("merged-\(number)-\(force)").path
          var runs: [(String, Run)] = []
          if !force {
            runs.append(("verify", try run(["verify", "--cache", cache.path])))
            runs.append(("inspect", try run(["inspect", "--cache", cache.path])))
            runs.append(
              (
                "export",
                try run([
                  "export", "--format", "avatar.small", "--entity", lastID, "--cache", cache.path,
                  exported,
                ])
              ))
            runs.append(("merge", try run(["merge", "--cache", merged, cache.path])))
            // A library hit in this process: a miss or the pixels rendered, never others.
            if let table = try? ImageTable(existingTableAt: path("table")) {
              for entry in entries {
                if let bitmap = table.bitmap(
                  entityID: entry.entityID, sourceVersion: entry.sourceVersion)
                {
                  #expect(
                    Array(bitmap.bytes) == pixels[entry.entityID], "\(cut): \(entry.entityID)")
                }
              }
            }
          }
          runs.append(
            (force ? "render --force" : "render", try run(force ? render + ["--force"] : render)))
          runs.append(("verify after the render", try run(["verify", "--cache", cache.path])))
          for (command, result) in runs {
            #expect(
              result.reason == .exit, "\(cut): \(command) was killed by signal \(result.status)")
          }
          let result = Dictionary(runs, uniquingKeysWith: { first, _ in first })
          if let verify = result["verify"] {
            #expect(verify.status == (cut.losesEntries ? 1 : 0), "\(cut): verify: \(verify.err)")
            if cut.losesEntries {
              #expect(verify.err.contains("avatar.small"), "\(cut): verify: \(verify.err)")
            }
          }
          if cut.losesEntries, !force {
            for command in ["inspect", "merge", "render"] {
              #expect(
                result[command]!.err.contains("avatar.small"),
                "\(cut): \(command) does not name the table: \(result[command]!.err)")
            }
            #expect(result["merge"]!.status == 1, "\(cut): merge copied a damaged table")
            // The last entry is among those lost: its export fails.
            #expect(result["export"]!.status == 1, "\(cut): export of a lost entry succeeded")
          }
          if let export = result["export"], export.status != 0 {
            #expect(!export.err.isEmpty, "\(cut): export failed without a word")
          }
          let rendered = result[force ? "render --force" : "render"]!
          #expect(rendered.status == 0, "\(cut): \(rendered.err)")
          let after = result["verify after the render"]!
          #expect(after.status == 0, "\(cut): verify after the render: \(after.err)")
          // The render put every photo back, with the pixels it rendered the first time.
          let healed = try ImageTable(existingTableAt: path("table"))
          #expect(healed.entries().count == 12, "\(cut)")
          for entry in entries {
            let bitmap = healed.bitmap(entityID: entry.entityID, sourceVersion: entry.sourceVersion)
            #expect(
              bitmap.map { Array($0.bytes) } == pixels[entry.entityID], "\(cut): \(entry.entityID)")
          }
        }
      }
    }
  }
}

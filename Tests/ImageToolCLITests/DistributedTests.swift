import CacheSharding
import Foundation
import ImageTables
import TestFixtures
import Testing

/// Sharded renders and merges, run as a batch engine runs them: separate `imgtool`
/// processes, the index from the engine's environment variables.
@Suite("imgtool render --shard and imgtool merge")
struct DistributedTests {
  /// A folder of every fixture photo that `imgtool render` picks up (kept and made:
  /// other containers, colour spaces, depths, alpha, all eight EXIF orientations).
  static func photoFolder() throws -> (path: String, count: Int) {
    let folder = try Paths.temporaryFolder().appendingPathComponent("photos")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let picked: Set<String> = ["jpg", "jpeg", "png", "webp", "gif", "tif", "tiff"]
    var count = 0
    for fixture in Fixture.photos
    where picked.contains((fixture.name as NSString).pathExtension.lowercased()) {
      try FileManager.default.copyItem(
        atPath: try fixture.path(), toPath: folder.appendingPathComponent(fixture.name).path)
      count += 1
    }
    return (folder.path, count)
  }

  @Test("three shard processes and a merge give, byte for byte, what one render gives")
  func threeShardsAndAMergeAreOneRender() async throws {
    let folder = try Paths.temporaryFolder()
    let (photos, photoCount) = try Self.photoFolder()
    let merged = folder.appendingPathComponent("merged").path
    let script = try await runProcess(
      Paths.packageRoot.appendingPathComponent("Examples/Distributed/local.sh"),
      ["3", "avatar", merged, photos], environment: ["IMGTOOL": Paths.executable.path])
    #expect(script.status == 0, "local.sh: \(script.err)")
    #expect(script.out.hasPrefix("merge: 3 caches into \(merged) (new): "))

    // Each shard rendered its own photos, and together all of them, once.
    let summaries = try String(contentsOfFile: merged + ".shards/renders.json", encoding: .utf8)
      .split(separator: "\n").map { line in
        try #require(
          try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      }
    let shards = summaries.compactMap { $0["shard"] as? [String: Any] }
    #expect(shards.compactMap { $0["index"] as? Int }.sorted() == [0, 1, 2])
    #expect(shards.allSatisfy { $0["count"] as? Int == 3 && $0["from"] is NSNull })
    #expect(summaries.compactMap { $0["inputs"] as? Int }.reduce(0, +) == photoCount)
    #expect(summaries.allSatisfy { ($0["failed"] as? [Any])?.isEmpty == true })

    let single = folder.appendingPathComponent("single").path
    let render = try await runProcess(
      Paths.executable, ["render", "--family", "avatar", "--quiet", "--cache", single, photos])
    #expect(render.status == 0, "render: \(render.err)")
    let one = try TableContents(single)
    let sharded = try TableContents(merged)
    #expect(one.entries.keys.sorted() == sharded.entries.keys.sorted())
    for (format, entries) in one.entries {
      // The avatar family's tables hold every photo; the photo family's none, in both.
      #expect(entries.count == (format.hasPrefix("avatar.") ? photoCount : 0), "\(format)")
      #expect(sharded.entries[format]?.keys.sorted() == entries.keys.sorted(), "\(format)")
      for (id, entry) in entries {
        #expect(sharded.entries[format]?[id] == entry, "\(format) \(id) differs")
      }
    }
    #expect(try await runProcess(Paths.executable, ["verify", "--cache", merged]).status == 0)
    // What CI runs after the Slurm job array says the same.
    let compared = try await runProcess(Self.compareCaches, [single, merged])
    #expect(compared.status == 0)
    #expect(
      compared.out == "compare-caches: the same: \(3 * photoCount) entries, byte for byte\n")
  }

  static let compareCaches = Paths.executable.deletingLastPathComponent()
    .appendingPathComponent("compare-caches")

  @Test("compare-caches names each difference: a missing entity, other pixels, another format")
  func compareCachesFindsDifferences() async throws {
    let folder = try Paths.temporaryFolder()
    let format = try ImageFormat(name: "f", family: "x", width: 4, height: 3)
    func cache(_ name: String, _ entries: [(String, UInt8)], format: ImageFormat) throws -> String {
      let table = try ImageTable(
        format: format, directory: folder.appendingPathComponent(name))
      for (id, red) in entries {
        try table.write(entityID: id, sourceVersion: "1") { canvas in
          for y in 0..<3 { for x in 0..<4 { canvas.set(x: x, y: y, RGBA(red, 0, UInt8(x), 255)) } }
        }
      }
      return folder.appendingPathComponent(name).path
    }
    let a = try cache("a", [("same", 10), ("other", 20), ("gone", 30)], format: format)
    let b = try cache("b", [("same", 10), ("other", 21)], format: format)
    let result = try await runProcess(Self.compareCaches, [a, b])
    #expect(result.status == 1)
    #expect(
      result.out == """
        compare-caches: f: entity 'gone' is only in \(a)
        compare-caches: f: entity 'other': the bytes differ from byte 2 on

        """)
    let wider = try cache(
      "c", [("same", 10)], format: ImageFormat(name: "f", family: "x", width: 5, height: 3))
    let other = try await runProcess(Self.compareCaches, [a, wider])
    #expect(other.status == 1)
    #expect(other.out == "compare-caches: format 'f' differs in width\n")
    #expect(try await runProcess(Self.compareCaches, [a]).status == 64)
  }

  @Test(
    "env/N takes the shard from each batch engine's variable",
    arguments: [
      (["JOB_COMPLETION_INDEX": "2"], 2, "JOB_COMPLETION_INDEX"),
      (
        ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_COUNT": "3"],
        1, "SLURM_ARRAY_TASK_ID"
      ),
      (["AWS_BATCH_JOB_ARRAY_INDEX": "0"], 0, "AWS_BATCH_JOB_ARRAY_INDEX"),
    ])
  func shardFromEnvironment(variables: [String: String], index: Int, variable: String) async throws
  {
    let cache = try Paths.temporaryFolder().appendingPathComponent("cache").path
    let result = try await runProcess(
      Paths.executable,
      [
        "render", "--family", "avatar", "--shard", "env/3", "--json", "--cache", cache,
        Paths.bundledPhotos.path,
      ], environment: variables)
    #expect(result.status == 0, "\(result.err)")
    let summary = try #require(
      try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
    let shard = try #require(summary["shard"] as? [String: Any])
    #expect(shard["index"] as? Int == index)
    #expect(shard["count"] as? Int == 3)
    #expect(shard["from"] as? String == variable)
    let mine = try FileManager.default.contentsOfDirectory(atPath: Paths.bundledPhotos.path)
      .filter { Shard.index(of: $0, count: 3) == index }.sorted()
    #expect(summary["inputs"] as? Int == mine.count)
    let table = try ImageTable(existingTableAt: cache + "/avatar.small.table")
    #expect(table.entries().map(\.entityID).sorted() == mine)
  }

  @Test("env/N with no variable, or an index out of range, is refused by name")
  func environmentRefusals() async throws {
    let cache = try Paths.temporaryFolder().appendingPathComponent("cache").path
    let arguments = [
      "render", "--family", "avatar", "--shard", "env/3", "--cache", cache,
      Paths.bundledPhotos.path,
    ]
    let none = try await runProcess(Paths.executable, arguments)
    #expect(none.status == 64)
    #expect(
      none.err.hasPrefix(
        "imgtool: invalid value 'env/3' for '--shard': env/3 reads the shard from the batch "
          + "engine, but none of JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, "
          + "AWS_BATCH_JOB_ARRAY_INDEX is set;"))
    let outside = try await runProcess(
      Paths.executable, arguments, environment: ["AWS_BATCH_JOB_ARRAY_INDEX": "3"])
    #expect(outside.status == 64)
    #expect(
      outside.err.hasPrefix(
        "imgtool: invalid value 'env/3' for '--shard': AWS_BATCH_JOB_ARRAY_INDEX gives shard 3 "
          + "but there are 3 shards (0 to 2)"))
    #expect(!FileManager.default.fileExists(atPath: cache))
  }

  @Test("a shard's text summary names it; a merge of another manifest is refused")
  func summaryAndRefusal() async throws {
    let folder = try Paths.temporaryFolder()
    let a = folder.appendingPathComponent("a").path
    let rendered = await runTool([
      "render", "--family", "avatar", "--shard", "1/3", "--cache", a, Paths.bundledPhotos.path,
    ])
    #expect(rendered.status == 0)
    #expect(
      rendered.out.first?.hasPrefix("render: family avatar, shard 1/3: 4 photos: 4 rendered,")
        == true)

    let manifest = folder.appendingPathComponent("imgtool.json")
    try Data(
      #"{"formats": [{"name": "avatar.small", "family": "avatar", "size": "32x32", "scale": 2, "pipeline": "fill"}, {"name": "avatar.medium", "family": "avatar", "size": "64x64", "scale": 2, "pipeline": "fill(crop: attention) | circle"}, {"name": "avatar.large", "family": "avatar", "size": "128x128", "scale": 2, "pipeline": "fill(crop: attention) | circle"}, {"name": "photo.thumb", "family": "photo", "size": "75x75", "scale": 2, "style": "bgr32", "pipeline": "fill(crop: centre)"}, {"name": "photo.screen", "family": "photo", "size": "360x640", "scale": 2, "style": "bgr32", "pipeline": "fit"}]}"#
        .utf8
    ).write(to: manifest)
    let b = folder.appendingPathComponent("b").path
    let other = await runTool([
      "render", "--family", "avatar", "--shard", "2/3", "--manifest", manifest.path, "--cache", b,
      Paths.bundledPhotos.path,
    ])
    #expect(other.status == 0, "\(other.err)")
    let out = folder.appendingPathComponent("out").path
    let refused = await runTool(["merge", "--cache", out, a, b])
    #expect(refused.status == 1)
    #expect(
      refused.err == [
        "imgtool: merge: format 'avatar.small' in \(b) differs from the one in \(a) in "
          + "pipeline, processors; merge only caches rendered with the same manifest and "
          + "processors (render again, or merge into a new folder)",
        "imgtool: merge: nothing was written; \(out) is as it was",
      ])
    #expect(!FileManager.default.fileExists(atPath: out))

    let merged = await runTool(["merge", "--json", "--cache", out, a, a])
    #expect(merged.status == 0)
    let summary = try #require(
      try JSONSerialization.jsonObject(with: Data(merged.out.joined().utf8)) as? [String: Any])
    #expect(summary["entries"] as? Int == 12)
    #expect(summary["created"] as? Bool == true && summary["atomic"] as? Bool == true)
    let formats = try #require(summary["formats"] as? [[String: Any]])
    let small = try #require(formats.first { $0["format"] as? String == "avatar.small" })
    #expect(small["entries"] as? Int == 4 && small["duplicates"] as? Int == 4)

    // Another process writing the output: nothing is done, and the status says "try
    // again" (75) rather than "some input failed" (1).
    let before = try TableContents(out)
    let lock = try WriterLockHolder(out, "avatar.small")
    let busy = await runTool(["merge", "--cache", out, a, a])
    withExtendedLifetime(lock) {}
    #expect(busy.status == 75, "\(busy.err)")
    #expect(
      busy.err == [
        "imgtool: merge: \(out)/avatar.small.lock: another process is writing this table; "
          + "wait for it to finish (--wait)",
        "imgtool: merge: nothing was written; \(out) is as it was",
      ])
    #expect(try TableContents(out).entries == before.entries)
  }
}

/// Every entry of every table of a cache: format -> entity -> what it holds.
struct TableContents {
  struct Entry: Equatable, CustomStringConvertible {
    var version: String
    var width: Int
    var height: Int
    var bytes: [UInt8]

    var description: String { "\(version) \(width)x\(height), \(bytes.count) bytes" }
  }
  var entries: [String: [String: Entry]] = [:]

  init(_ folder: String) throws {
    for path in try ImageTable.tableFiles(in: URL(fileURLWithPath: folder)) {
      let table = try ImageTable(existingTableAt: path)
      entries[table.format.name] = try Dictionary(
        uniqueKeysWithValues: table.entries().map { entry in
          let bitmap = try #require(
            table.bitmap(entityID: entry.entityID, sourceVersion: entry.sourceVersion))
          return (
            entry.entityID,
            Entry(
              version: entry.sourceVersion, width: bitmap.width, height: bitmap.height,
              bytes: Array(bitmap.bytes))
          )
        })
    }
  }
}

/// Runs a program with the batch engines' index variables cleared and `environment`
/// added, as a job of that engine would. It waits on a thread of its own, not on one
/// of the few that run every test's tasks: a 15-second script must not hold one up.
func runProcess(_ program: URL, _ arguments: [String], environment: [String: String] = [:])
  async throws -> (status: Int32, out: String, err: String)
{
  var variables = ProcessInfo.processInfo.environment
  for name in Shard.indexVariables + ["SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT"] {
    variables[name] = nil
  }
  let merged = variables.merging(environment) { $1 }
  return try await withCheckedThrowingContinuation { continuation in
    Thread.detachNewThread {
      continuation.resume(
        with: Result {
          try runExecutable(arguments, program: program, environment: merged)
        })
    }
  }
}

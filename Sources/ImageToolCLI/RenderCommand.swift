import CacheSharding
import Foundation
import ImageCaching
import ImageTables
import Vips

/// `imgtool render --family NAME PATH...`: every photo into every format of a family.
public struct RenderCommand: Command {
  public init() {}

  public let spec = CommandSpec(
    name: "render",
    abstract: "Render photos into every format of a family, one decode each.",
    discussion: """
      Walks the files and folders given (folders recursively, picking .jpg, .jpeg, .png, \
      .webp, .gif and .tif files). Each photo's entity id is its path relative to the \
      folder given, and its source version a hash of its bytes, so entries that are up to \
      date are skipped (--force redoes them). Each photo is decoded once, at the largest \
      size the family needs, and every format's pipeline runs on that. A bad photo is \
      named with its reason and the others go on; the exit status is then 1.
      """,
    options: [
      .init("family", value: "name", help: "The family to render (see 'imgtool manifest')."),
      .init("force", help: "Redraw entries that are up to date."),
      .init("jobs", value: "n", help: "Photos at once (default: the number of cores)."),
      .init("quiet", help: "No progress."),
      .init("json", help: "Print the summary as one JSON object."),
      .init("sheet", value: "file", help: "Also write a contact sheet of the family (.png)."),
      .init(
        "shard", value: "I/N",
        help: "Render only shard I of N (by a stable hash of the entity id); env/N takes I "
          + "from JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or AWS_BATCH_JOB_ARRAY_INDEX."),
    ] + CacheOptions.specs,
    arguments: [.init("path", help: "Photos, and folders of photos.", repeats: true)]
  )

  struct Outcome: Sendable {
    var written = 0
    var skipped = false
    var failure: String?
  }

  public func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> Int32 {
    let console = context.console
    guard let family = arguments.value("family") else {
      throw CommandLineError.missingValue(option: "--family", valueName: "name")
    }
    let jobs = try arguments.integer(
      "jobs", in: 1...256, default: ProcessInfo.processInfo.activeProcessorCount)
    let shard = try Self.shard(arguments)
    let (manifest, cache) = try CacheOptions.open(
      arguments, context: context, workers: jobs, batch: true)
    // Photos run side by side: give each libvips pipeline its share of the cores,
    // rather than every pipeline a thread per core.
    Vips.concurrency = max(1, ProcessInfo.processInfo.activeProcessorCount / jobs)
    let names = cache.formatNames(family: family)
    guard !names.isEmpty else {
      let families = manifest.families.joined(separator: ", ")
      throw CommandLineError.invalidValue(
        option: "--family", value: family,
        reason: "\(manifest.origin) has the families: \(families)")
    }
    let found = RenderInputs(paths: arguments.positionals, shard: shard)
    let progress = ProgressReporter(
      total: found.inputs.count, console: console,
      quiet: arguments.flag("quiet") || arguments.flag("json"))
    let force = arguments.flag("force")
    var failed = found.problems
    var written = 0
    var skipped = 0
    await withTaskGroup(of: (RenderInputs.Input, Outcome).self) { group in
      var pending = found.inputs[...]
      func startNext() {
        guard let input = pending.popFirst() else { return }
        group.addTask {
          (
            input,
            await Self.render(input, family: family, formats: names, cache: cache, force: force)
          )
        }
      }
      for _ in 0..<jobs { startNext() }
      for await (input, outcome) in group {
        if let failure = outcome.failure {
          failed.append((input.path, failure))
          progress.finished(input.path, "failed: \(failure)")
        } else if outcome.skipped {
          skipped += 1
          progress.finished(input.path, "up to date")
        } else {
          written += outcome.written
          progress.finished(input.path, "written")
        }
        startNext()
      }
    }
    progress.end()
    let seconds = progress.elapsedSeconds
    if let sheet = arguments.value("sheet") {
      let tables = names.compactMap { name in cache.table(format: name).map { (name, $0) } }
      if let image = try ContactSheet.make(tables) {
        try image.write(to: sheet)
      } else {
        console.err("imgtool: --sheet: the family holds no entries; nothing written to \(sheet)")
      }
    }
    let summary = Summary(
      family: family, shard: shard, inputs: found.inputs.count + found.problems.count,
      written: written,
      skipped: skipped, failed: failed, seconds: seconds,
      tables: names.compactMap { name in cache.table(format: name).map { (name, $0.stats) } })
    if arguments.flag("json") {
      console.out(summary.json.text)
    } else {
      summary.lines.forEach(console.out)
    }
    return failed.isEmpty ? ExitCode.success : ExitCode.failure
  }

  /// The `--shard` given, if any; `env/N` reads the batch engine's variables.
  static func shard(_ arguments: ParsedArguments) throws(CommandLineError) -> Shard? {
    guard let text = arguments.value("shard") else { return nil }
    do {
      return try Shard.parse(text, environment: ProcessInfo.processInfo.environment)
    } catch {
      throw .invalidValue(option: "--shard", value: text, reason: error.description)
    }
  }

  /// One photo: read once, hashed for its version, skipped if up to date, else filled.
  static func render(
    _ input: RenderInputs.Input, family: String, formats: [String], cache: ImageCache, force: Bool
  ) async -> Outcome {
    let bytes: [UInt8]
    do {
      bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: input.path)))
    } catch {
      return Outcome(failure: "cannot read the file: \(error.localizedDescription)")
    }
    let entity = Entity(
      id: input.entityID, sourceVersion: Checksum.hex(bytes),
      source: .bytes(bytes, name: input.path))
    if !force, formats.allSatisfy({ cache.contains(entity, format: $0) }) {
      return Outcome(skipped: true)
    }
    do {
      let written = try await cache.fill(entity, family: family, force: force)
      return Outcome(written: written.count)
    } catch {
      return Outcome(failure: Self.reason(error, path: input.path))
    }
  }

  /// The error without the path, which the summary puts in front.
  static func reason(_ error: CacheError, path: String) -> String {
    if case .source(_, _, let vipsError) = error { return vipsError.reason }
    let text = error.description
    return text.hasPrefix(path + ": ") ? String(text.dropFirst(path.count + 2)) : text
  }

  struct Summary {
    var family: String
    var shard: Shard?
    var inputs: Int
    var written: Int
    var skipped: Int
    var failed: [(path: String, error: String)]
    var seconds: Double
    var tables: [(String, TableStats)]

    var rate: Double { seconds > 0 ? Double(inputs - skipped - failed.count) / seconds : 0 }

    var lines: [String] {
      var lines = [
        "render: family \(family)\(shard.map { ", shard \($0)" } ?? ""): \(inputs) input\(inputs == 1 ? "" : "s"), \(written) entries "
          + "written, \(skipped) skipped (up to date), \(failed.count) failed, in "
          + String(format: "%.2f s (%.1f images/s)", seconds, rate)
      ]
      lines += failed.map { "  failed: \($0.path): \($0.error)" }
      lines += tables.map { name, stats in
        "  \(name): \(stats.entries) entries, \(ByteCountText.describe(stats.fileBytes))"
      }
      return lines
    }

    var json: JSONValue {
      .object([
        ("family", .string(family)),
        ("shard", shard.map(Self.json) ?? .null),
        ("inputs", .integer(inputs)), ("written", .integer(written)),
        ("skipped", .integer(skipped)),
        (
          "failed",
          .array(
            failed.map { .object([("path", .string($0.path)), ("error", .string($0.error))]) })
        ),
        ("seconds", .number(seconds)), ("imagesPerSecond", .number(rate)),
        (
          "tables",
          .array(
            tables.map { name, stats in
              .object([
                ("format", .string(name)), ("entries", .integer(stats.entries)),
                ("fileBytes", .integer(stats.fileBytes)),
              ])
            })
        ),
      ])
    }

    static func json(_ shard: Shard) -> JSONValue {
      .object([
        ("index", .integer(shard.index)), ("count", .integer(shard.count)),
        ("from", shard.source.map(JSONValue.string) ?? .null),
      ])
    }
  }
}

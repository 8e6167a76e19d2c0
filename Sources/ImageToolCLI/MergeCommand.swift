import CacheSharding
import Foundation
import ImageToolManifest
import Vips

/// `imgtool merge --cache OUT CACHE...`: the caches of a sharded render, joined.
public struct MergeCommand: Command {
  public init() {}

  public let spec = CommandSpec(
    name: "merge",
    abstract: "Merge the caches of a sharded render (render --shard) into one.",
    discussion: """
      Copies every entry of the caches given into the cache --cache names (made if \
      missing). Every cache must hold the same formats, made from the same manifest and \
      processors: a table of another fingerprint is refused, naming the format and the \
      fields that differ. An entity in two caches at the same version is taken once; at \
      two versions it is an error naming it. The output's entries stay, unless a cache \
      has the same entity, whose entry replaces them. More entities than a format's \
      maximumCount is an error. On any error nothing is written. The new tables are built beside the \
      output and moved in at once, with the output's writer locks held, so the output is \
      complete or unchanged.
      """,
    options: [
      .init(
        "cache", value: "dir", help: "The cache to merge into (made if missing).",
        required: true),
      .init("wait", help: "Wait for a process writing the output to finish, rather than fail."),
      .init("json", help: "Print the summary as one JSON object."),
    ],
    arguments: [.init("cache-dir", help: "The caches of the shards.", repeats: true)]
  )

  public func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> Int32 {
    guard let output = arguments.value("cache") else {
      throw CommandLineError.missingOption(option: "--cache", valueName: "dir")
    }
    let inputs = arguments.positionals
    let report: MergeReport
    do {
      report = try CacheMerge.merge(
        inputs.map { URL(fileURLWithPath: $0) }, into: URL(fileURLWithPath: output),
        options: .init(waitForWriters: arguments.flag("wait")))
    } catch {
      context.console.err("imgtool: merge: \(error)")
      context.console.err("imgtool: merge: nothing was written; \(output) is as it was")
      return ExitCode.of(error)
    }
    let summary = Summary(output: output, inputs: inputs, report: report)
    if arguments.flag("json") {
      context.console.out(summary.json.text)
    } else {
      summary.lines.forEach(context.console.out)
    }
    return ExitCode.success
  }

  struct Summary {
    var output: String
    var inputs: [String]
    var report: MergeReport

    var entriesPerSecond: Double {
      report.seconds > 0 ? Double(report.entriesWritten) / report.seconds : 0
    }
    var bytesPerSecond: Double {
      report.seconds > 0 ? Double(report.bytesCopied) / report.seconds : 0
    }

    var lines: [String] {
      let count = inputs.count
      var lines = [
        "merge: \(count) cache\(count == 1 ? "" : "s") into \(output)"
          + (report.createdOutput ? " (new)" : "")
          + ": \(report.entriesWritten) \(report.entriesWritten == 1 ? "entry" : "entries"), "
          + "\(ByteCountText.describe(report.bytesCopied)) in "
          + String(format: "%.2f s (%.0f entries/s, ", report.seconds, entriesPerSecond)
          + "\(ByteCountText.describe(Int(bytesPerSecond)))/s)"
      ]
      lines += report.formats.map { format in
        "  \(format.name): \(format.entries) \(format.entries == 1 ? "entry" : "entries") (\(format.fromInputs) from the shards, "
          + "\(format.duplicates) duplicates taken once, \(format.keptFromOutput) kept)"
      }
      if !report.atomic {
        lines.append(
          "  note: this file system cannot swap folders atomically; the tables were moved "
            + "in one by one")
      }
      return lines
    }

    var json: JSONValue {
      .object([
        ("output", .string(output)), ("inputs", .array(inputs.map { .string($0) })),
        ("created", .bool(report.createdOutput)), ("atomic", .bool(report.atomic)),
        ("entries", .integer(report.entriesWritten)), ("bytes", .integer(report.bytesCopied)),
        ("seconds", .number(report.seconds)), ("entriesPerSecond", .number(entriesPerSecond)),
        ("bytesPerSecond", .number(bytesPerSecond)),
        (
          "formats",
          .array(
            report.formats.map { format in
              .object([
                ("format", .string(format.name)), ("entries", .integer(format.entries)),
                ("fromInputs", .integer(format.fromInputs)),
                ("duplicates", .integer(format.duplicates)),
                ("keptFromOutput", .integer(format.keptFromOutput)),
              ])
            })
        ),
      ])
    }
  }
}

import Foundation
import ImageToolManifest

/// `imgtool bench tables`: benchmarks that print figures and ratios against the
/// alternatives, run side by side in one process.
public struct BenchCommand: Command {
  public init() {}

  public let spec = CommandSpec(
    name: "bench",
    abstract: "Measure table hits against a raw file read and a PNG decode per entry.",
    discussion: """
      'tables' fills a table of 10,000 entries of 64x64 bgra32, then reads entries at \
      random: as table hits, as one raw file read per entry (open, read, close) and as one \
      PNG decode per entry with libvips, and prints each one's median and 99th percentile \
      and how many times faster a hit is. Timings include the clock's own cost, printed \
      beside them. Figures vary with the machine: compare ratios, run it more than once.
      """,
    options: [
      .init("json", help: "Print one JSON object of the figures."),
      .init("entries", value: "n", help: "Entries in the table (default 10000)."),
      .init("hits", value: "n", help: "Table hits to time (default 100000)."),
      .init("side", value: "n", help: "Entry width and height in pixels (default 64)."),
    ],
    arguments: [.init("suite", help: "What to measure: tables.")]
  )

  public func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> Int32 {
    let console = context.console
    guard arguments.positionals[0] == "tables" else {
      throw CommandLineError.invalidValue(
        option: "<suite>", value: arguments.positionals[0], reason: "the suites are: tables")
    }
    var benchmark = TableBenchmark()
    benchmark.entries = try arguments.integer("entries", in: 100...1_000_000, default: 10_000)
    benchmark.hits = try arguments.integer("hits", in: 1_000...10_000_000, default: 100_000)
    benchmark.side = try arguments.integer("side", in: 8...256, default: 64)
    benchmark.pngFiles = min(benchmark.pngFiles, benchmark.entries)
    let result = try benchmark.run { console.err("bench: \($0)") }
    if arguments.flag("json") {
      console.out(Self.json(result).text)
    } else {
      Self.table(result).forEach(console.out)
    }
    return ExitCode.success
  }

  static func json(_ result: TableBenchmark.Result) -> JSONValue {
    .object([
      ("entries", .integer(result.entries)), ("width", .integer(result.side)),
      ("height", .integer(result.side)), ("style", "bgra32"),
      ("hitNanosP50", .number(result.hit.median)),
      ("hitNanosP99", .number(result.hit.percentile(0.99))),
      ("rawFileNanosP50", .number(result.rawFile.median)),
      ("rawFileNanosP99", .number(result.rawFile.percentile(0.99))),
      ("pngDecodeNanosP50", .number(result.pngDecode.median)),
      ("pngDecodeNanosP99", .number(result.pngDecode.percentile(0.99))),
      ("rawFileRatio", .number(result.rawFileRatio)),
      ("pngDecodeRatio", .number(result.pngDecodeRatio)),
      ("allocatedBytesPerHit", result.allocatedBytesPerHit.map { .number($0) } ?? .null),
      ("controlBytesPerAllocation", result.controlBytesPerAllocation.map { .number($0) } ?? .null),
      ("timerNanosP50", .number(result.timerOverhead.median)),
      ("bareMmapNanosP50", .number(result.bare.median)),
      ("hitOverBareRatio", .number(result.bareRatio)),
      ("hitsPerSecondOneThread", .number(result.threads.hitsOne)),
      ("hitsPerSecondTwoThreads", .number(result.threads.hitsTwo)),
      ("hitTwoThreadScaling", .number(result.hitThreadScaling)),
      ("bareTwoThreadScaling", .number(result.bareThreadScaling)),
      ("readerOpenNanosP50", .number(result.readerOpen.median)),
      ("writerOpenNanosP50", .number(result.writerOpen.median)),
    ])
  }

  static func table(_ result: TableBenchmark.Result) -> [String] {
    func row(_ name: String, _ samples: LatencySamples, _ ratio: Double?) -> String {
      let label = name.padding(toLength: 34, withPad: " ", startingAt: 0)
      let p50 = String(format: "%10.0f", samples.median)
      let p99 = String(format: "%10.0f", samples.percentile(0.99))
      let times = ratio.map { String(format: "%9.1fx", $0) } ?? "         -"
      return "\(label)\(p50)\(p99)\(times)"
    }
    let allocation =
      result.allocatedBytesPerHit.map { String(format: "%.2f bytes per hit", $0) }
      ?? "not measurable here"
    let control =
      result.controlBytesPerAllocation.map { String(format: "%.1f bytes", $0) } ?? "not measurable"
    return [
      "\(result.entries) entries of \(result.side)x\(result.side) bgra32, read at random",
      "",
      String(
        format: "table hit p50 %.0f ns vs bare mmap lookup p50 %.0f ns (interleaved, each of "
          + "another random entry): %.2fx",
        result.hit.median, result.bare.median, result.bareRatio),
      String(
        format: "two reader threads: table %.2fx one thread (%.1fM/s vs %.1fM/s); "
          + "bare lookup %.2fx (the machine's own ceiling)",
        result.hitThreadScaling, result.threads.hitsTwo / 1e6, result.threads.hitsOne / 1e6,
        result.bareThreadScaling),
      String(
        format: "open of the table: read-only %.1f ms, for writing %.1f ms (medians of 5; "
          + "the first hit included read-only)",
        result.readerOpen.median / 1e6, result.writerOpen.median / 1e6),
      "",
      "                                     p50 (ns)  p99 (ns)  hit is",
      row("table hit (mmap, zero-copy)", result.hit, nil),
      row("raw file per entry (open+read)", result.rawFile, result.rawFileRatio),
      row("PNG decode per entry (libvips)", result.pngDecode, result.pngDecodeRatio),
      "",
      "heap growth while keeping every hit's Bitmap: \(allocation)",
      "  (the same loop allocating one 16-byte object a step grows it by \(control))",
      String(
        format: "clock overhead included in each timing: %.0f ns (p50)", result.timerOverhead.median
      ),
    ]
  }
}

import Foundation
import ImageTables
import ImageToolManifest
import Vips

/// `imgtool inspect CACHE_DIR`: the tables of a cache, their sizes and their entries.
public struct InspectCommand: Command {
  public init() {}

  public let spec = CommandSpec(
    name: "inspect",
    abstract: "List a cache's tables with their stats and entries.",
    discussion: """
      Opens each table read-only (a render may be running) and prints its format, how \
      many entries it holds of how many it may, the bytes per entry, the size of its files \
      and their overhead over the raw pixels, then its entries from least to most \
      recently used.
      """,
    options: [
      .init("format", value: "name", help: "Only this format's table."),
      .init("json", help: "Print one JSON object: the cache and a list of tables."),
      .init("summary", help: "Stats only; do not list entries."),
    ] + CacheOptions.specs,
    arguments: [
      .init("cache-dir", help: "The cache folder (default: as --cache says).", optional: true)
    ]
  )

  public func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> Int32 {
    let console = context.console
    let directory = try Self.directory(arguments)
    var paths = try ImageTable.tableFiles(in: directory)
    if let name = arguments.value("format") {
      paths = paths.filter {
        URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent == name
      }
      if paths.isEmpty {
        console.err("imgtool: \(directory.path): no table for format '\(name)'")
        return ExitCode.failure
      }
    }
    var tables: [JSONValue] = []
    var failed = false
    for path in paths {
      do {
        // Damage found at open (a file cut short) is named as a render names it.
        let table = try ImageTable(
          existingTableAt: path,
          options: .init(readOnly: true, report: { console.err("imgtool: warning: \($0)") }))
        let stats = table.stats
        let entries = arguments.flag("summary") ? [] : table.entries()
        if arguments.flag("json") {
          tables.append(Self.json(table.format, stats, entries))
        } else {
          console.out(Self.line(path, table.format, stats))
          for entry in entries {
            console.out(
              "  \(entry.entityID)  version \(entry.sourceVersion)  \(entry.width)x\(entry.height)  "
                + "slot \(entry.slot)")
          }
        }
      } catch {
        failed = true
        console.err("imgtool: \(error)")
      }
    }
    if arguments.flag("json") {
      console.out(
        JSONValue.object([("cache", .string(directory.path)), ("tables", .array(tables))]).text)
    } else if paths.isEmpty {
      console.out("\(directory.path): no tables")
    }
    return failed ? ExitCode.failure : ExitCode.success
  }

  static func line(_ path: String, _ format: ImageFormat, _ stats: TableStats) -> String {
    let overhead = stats.entries == 0 ? "n/a" : "\((stats.overhead * 1000).rounded() / 10)%"
    return
      "\(path): \(format.name) (family \(format.family)), \(format.pixelWidth)x\(format.pixelHeight) "
      + "\(format.style.rawValue), \(stats.entries) of \(stats.capacity) entries "
      + "(\(stats.allocatedEntries) allocated), \(stats.bytesPerEntry) bytes per entry, "
      + "\(ByteCountText.describe(stats.fileBytes)) on disk, overhead \(overhead)"
  }

  static func json(_ format: ImageFormat, _ stats: TableStats, _ entries: [TableEntry]) -> JSONValue
  {
    .object([
      ("format", .string(format.name)), ("family", .string(format.family)),
      ("width", .integer(format.pixelWidth)), ("height", .integer(format.pixelHeight)),
      ("style", .string(format.style.rawValue)), ("entries", .integer(stats.entries)),
      ("capacity", .integer(stats.capacity)), ("allocated", .integer(stats.allocatedEntries)),
      ("bytesPerEntry", .integer(stats.bytesPerEntry)), ("fileBytes", .integer(stats.fileBytes)),
      ("overhead", stats.entries == 0 ? .null : .number(stats.overhead)),
      (
        "contents",
        .array(
          entries.map {
            .object([
              ("entity", .string($0.entityID)), ("sourceVersion", .string($0.sourceVersion)),
              ("width", .integer($0.width)), ("height", .integer($0.height)),
              ("slot", .integer($0.slot)),
            ])
          })
      ),
    ])
  }

  /// The folder given, else the cache the options and manifest name.
  static func directory(_ arguments: ParsedArguments) throws -> URL {
    try CacheOptions.folderToRead(arguments)
  }
}

import Foundation
import ImageTables
import ImageToolManifest

/// `imgtool verify CACHE_DIR`: checks every entry of every table.
public struct VerifyCommand: Command {
  public init() {}

  public let spec = CommandSpec(
    name: "verify",
    abstract: "Check every entry of a cache's tables; exit 1 naming what is corrupt.",
    discussion: """
      Opens each table read-only and checks each entry's record and pixel checksums. A \
      corrupt entry is named with its table, slot, entity and reason; a table serving it \
      treats it as a miss. Nothing is changed: a damaged record is cleared by the next \
      writer, and an entry whose pixels fail their checksum by 'imgtool render --force' of \
      its photo (an up-to-date render reads the index only, not the pixels). \
      Beside a render, an entry being written is skipped. A folder with no tables is an \
      error: a mistyped path must not pass as a clean cache.
      """,
    options: [.init("json", help: "Print one JSON object with 'checked' and 'corrupt'.")]
      + CacheOptions.specs,
    arguments: [
      .init("cache-dir", help: "The cache folder (default: as --cache says).", optional: true)
    ]
  )

  public func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> Int32 {
    let console = context.console
    let directory = try Self.directory(arguments)
    var checked = 0
    var corrupt: [(format: String, slot: Int?, entity: String?, reason: String)] = []
    let paths = try ImageTable.tableFiles(in: directory)
    // A mistyped folder must not pass as a clean cache.
    guard !paths.isEmpty else {
      console.err(
        "imgtool: \(directory.path): no tables here: not a cache, or nothing rendered into "
          + "it yet (imgtool render --cache \(directory.path) ...)")
      return ExitCode.failure
    }
    for path in paths {
      let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
      do {
        let report = try ImageTable(existingTableAt: path).verify()
        checked += report.checked
        corrupt += report.corrupt.map { (name, $0.slot, $0.entityID, $0.reason) }
      } catch {
        corrupt.append((name, nil, nil, "\(error)"))
      }
    }
    if arguments.flag("json") {
      let list = corrupt.map { problem in
        JSONValue.object([
          ("format", .string(problem.format)), ("slot", problem.slot.map { .integer($0) } ?? .null),
          ("entity", problem.entity.map { .string($0) } ?? .null),
          ("reason", .string(problem.reason)),
        ])
      }
      console.out(
        JSONValue.object([("checked", .integer(checked)), ("corrupt", .array(list))]).text)
    } else {
      for problem in corrupt {
        let slot = problem.slot.map { " slot \($0)" } ?? ""
        let entity = problem.entity.map { " ('\($0)')" } ?? ""
        console.err("imgtool: corrupt: \(problem.format)\(slot)\(entity): \(problem.reason)")
      }
      if let hint = Self.hint(corrupt.map(\.reason)) { console.err("imgtool: verify: \(hint)") }
      console.out(
        "\(directory.path): \(paths.count) table\(paths.count == 1 ? "" : "s"), \(checked) entries "
          + "checked, \(corrupt.count) corrupt")
    }
    return corrupt.isEmpty ? ExitCode.success : ExitCode.failure
  }

  /// What puts the damage named right, or nil when nothing was named: a plain render
  /// reads the index only, so entries whose pixels fail need `--force`.
  static func hint(_ reasons: [String]) -> String? {
    guard !reasons.isEmpty else { return nil }
    let pixels = reasons.filter { $0.hasPrefix("its pixels fail their checksum") }.count
    if pixels == reasons.count {
      return "`imgtool render --force` of the photos named draws their entries again "
        + "(a plain render reads the index only, not the pixels)"
    }
    if pixels > 0 {
      return "the next `imgtool render` clears the rest; entries whose pixels fail "
        + "their checksum are drawn again only by `imgtool render --force` of their photos"
    }
    return "the next `imgtool render` into this cache clears what is damaged"
  }

  /// The folder given, else the cache the options and manifest name.
  static func directory(_ arguments: ParsedArguments) throws -> URL {
    try CacheOptions.folderToRead(arguments)
  }
}

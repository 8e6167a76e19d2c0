import Foundation
import ImageCaching
import ImageProcessing
import ImageTables
import ImageToolManifest
import Locking
import Vips

/// `imgtool export --format NAME --entity ID OUT.png`: one entry, as an image file.
public struct ExportCommand: Command {
  public init() {}

  public let spec = CommandSpec(
    name: "export",
    abstract: "Write one cached entry to an image file, exactly as the table holds it.",
    discussion: """
      PNG and WebP keep the entry's transparency; JPEG has none, so a transparent entry \
      is flattened onto the manifest's background colour.
      """,
    options: [
      .init("format", value: "name", help: "The entry's format.", required: true),
      .init(
        "entity", value: "id",
        help: "The entity id (for a render: the path relative to its folder).", required: true),
    ] + CacheOptions.specs,
    arguments: [.init("output", help: "The file to write (.png, .jpg or .webp).")]
  )

  /// What to try instead: an entry that fails its checksum is drawn again by a forced
  /// render of its photo (an up-to-date render reads the index only, not the pixels);
  /// an id given as a path is matched against the ids (paths relative to the folder
  /// rendered) that end it; else the closest id.
  static func hint(_ entity: String, held: Bool, ids: [String]) -> String {
    if held {
      return ": it fails its checksum; `imgtool render --force` of its photo draws it again"
    }
    let ending = ids.filter { entity.hasSuffix("/" + $0) }.max { $0.count < $1.count }
    if let match = ending ?? Suggestion.closest(to: entity, among: ids) {
      return "; did you mean '\(match)'? (entity ids are paths relative to the folder rendered)"
    }
    return " (entity ids are paths relative to the folder rendered; `imgtool inspect` lists them)"
  }

  public func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> Int32 {
    guard let format = arguments.value("format") else {
      throw CommandLineError.missingOption(option: "--format", valueName: "name")
    }
    guard let entity = arguments.value("entity") else {
      throw CommandLineError.missingOption(option: "--entity", valueName: "id")
    }
    try OutputFile.check(arguments.positionals[0])
    // Damage the table finds (an entry left out, a file cut short) is named, as
    // inspect and a render name it: a missing entry is not always one never rendered.
    let console = context.console
    let damaged = Lock(false)
    // Entities the table's lookup buckets hide: held, and their pixels fine.
    let hidden = Lock(Set<String>())
    let table = try CacheTables.existing(
      format: format, arguments,
      report: { event in
        damaged.withLock { $0 = true }
        if case .lookupBucketsDamaged(_, let problems, _) = event {
          hidden.withLock { $0.formUnion(problems.compactMap(\.entityID)) }
        }
        console.err("imgtool: warning: \(event)")
      })
    let entries = table.entries()
    guard let entry = entries.last(where: { $0.entityID == entity }),
      let bitmap = table.bitmap(entityID: entry.entityID, sourceVersion: entry.sourceVersion)
    else {
      let held = entries.contains { $0.entityID == entity }
      if held, hidden.withLock({ $0.contains(entity) }) {
        context.console.err(
          "imgtool: format '\(format)' holds an entry for '\(entity)' that its damaged lookup "
            + "buckets hide (named above); one `imgtool render` into this cache makes them "
            + "again (no --force needed)")
        return ExitCode.failure
      }
      // An entry named damaged above, its id unread, may be this one: no other id is
      // suggested then.
      let maybeDamaged = !held && damaged.withLock { $0 }
      context.console.err(
        "imgtool: format '\(format)' holds no "
          + (held || maybeDamaged ? "readable entry" : "entry") + " for '\(entity)'"
          + (maybeDamaged
            ? ": an entry named damaged above may be it; `imgtool render` of its photo draws "
              + "it again"
            : Self.hint(entity, held: held, ids: entries.map(\.entityID))))
      return ExitCode.failure
    }
    let output = arguments.positionals[0]
    var image = try bitmap.image()
    if EncodedFormat(path: output) == .jpeg, image.hasAlpha {
      let background = try CacheOptions.manifest(arguments).background
      image = try image.flattened(
        background: [background.red, background.green, background.blue].map(Double.init))
    }
    try image.write(to: output)
    context.console.out(
      "\(output): \(bitmap.width)x\(bitmap.height) \(bitmap.style.rawValue), \(format) of \(entity)"
    )
    return ExitCode.success
  }
}

/// `imgtool sheet --format NAME OUT.png`: every entry of a format in one picture.
public struct SheetCommand: Command {
  public init() {}

  public let spec = CommandSpec(
    name: "sheet",
    abstract: "Write a contact sheet of a format's entries (or a family's).",
    discussion: "Give either --format or --family.",
    options: [
      .init("format", value: "name", help: "The format."),
      .init("family", value: "name", help: "Every format of a family instead."),
    ] + CacheOptions.specs,
    arguments: [.init("output", help: "The file to write (.png, .jpg or .webp).")]
  )

  public func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> Int32 {
    if arguments.value("format") != nil, arguments.value("family") != nil {
      throw CommandLineError.conflictingOptions("--format", "--family")
    }
    let tables: [(String, ImageTable)]
    let console = context.console
    let report: @Sendable (ImageTableEvent) -> Void = { console.err("imgtool: warning: \($0)") }
    if let format = arguments.value("format") {
      tables = [(format, try CacheTables.existing(format: format, arguments, report: report))]
    } else if let family = arguments.value("family") {
      tables = try CacheTables.existing(family: family, arguments, report: report)
    } else {
      throw CommandLineError.missingOneOf("--format <name>", "--family <name>")
    }
    let names = tables.map(\.0)
    let output = arguments.positionals[0]
    try OutputFile.check(output)
    guard let sheet = try ContactSheet.make(tables) else {
      context.console.err("imgtool: \(names.joined(separator: ", ")): no entries; nothing written")
      return ExitCode.failure
    }
    try sheet.write(to: output)
    context.console.out(
      "\(output): \(sheet.width)x\(sheet.height), \(tables.map { $0.1.stats.entries }.reduce(0, +)) entries"
    )
    return ExitCode.success
  }
}

/// Tables of a cache opened read-only by format name, for the commands that only look.
enum CacheTables {
  /// `report` hears what the table finds damaged (entries left out, files cut short).
  static func existing(
    format: String, _ arguments: ParsedArguments,
    report: @escaping @Sendable (ImageTableEvent) -> Void = { _ in }
  ) throws -> ImageTable {
    let manifest = try CacheOptions.manifest(arguments)
    let directory = CacheOptions.directory(arguments, manifest: manifest)
    guard ImageFormat.isValidName(format) else {
      throw CommandLineError.invalidValue(
        option: "--format", value: format, reason: "not a format name")
    }
    let path = ImageTable.paths(formatName: format, directory: directory).table
    guard FileManager.default.fileExists(atPath: path) else {
      // A table of a format the manifest does not have (another manifest's) is read
      // all the same; without one, a name it does not have is a mistake, not unrendered.
      guard manifest.formats.contains(where: { $0.name == format }) else {
        throw CommandLineError.invalidValue(
          option: "--format", value: format, reason: unknownFormat(format, in: manifest))
      }
      throw CommandLineError.invalidValue(
        option: "--format", value: format,
        reason: "no table for it in \(directory.path); render its family first")
    }
    return try ImageTable(existingTableAt: path, options: .init(readOnly: true, report: report))
  }

  /// Why `format` is not one of `manifest`'s: the formats of the family its name starts
  /// with (`avatar.huge`: avatar's), else every format, else the closest name.
  static func unknownFormat(_ format: String, in manifest: Manifest) -> String {
    let family = format.split(separator: ".").first.map(String.init) ?? format
    let formats = manifest.formats(family: family).map(\.name)
    if !formats.isEmpty {
      return "no such format in \(Self.name(of: manifest)); family '\(family)' has: "
        + formats.joined(separator: ", ")
    }
    return "no such format in \(Self.name(of: manifest)), which has: "
      + manifest.formats.map(\.name).joined(separator: ", ")
  }

  /// How a message names the manifest: its file, or "the built-in manifest".
  static func name(of manifest: Manifest) -> String {
    manifest.origin == Manifest.builtIn.origin ? "the built-in manifest" : manifest.origin
  }

  /// Every table of `family`, read-only; a family with none yet is named with the
  /// render that makes them.
  static func existing(
    family: String, _ arguments: ParsedArguments,
    report: @escaping @Sendable (ImageTableEvent) -> Void = { _ in }
  ) throws -> [(String, ImageTable)] {
    let manifest = try CacheOptions.manifest(arguments)
    let names = manifest.formats(family: family).map(\.name)
    guard !names.isEmpty else {
      throw CommandLineError.invalidValue(
        option: "--family", value: family,
        reason: "\(manifest.origin) has the families: \(manifest.families.joined(separator: ", "))")
    }
    let directory = CacheOptions.directory(arguments, manifest: manifest)
    let missing = names.filter {
      !FileManager.default.fileExists(
        atPath: ImageTable.paths(formatName: $0, directory: directory).table)
    }
    guard missing.isEmpty else {
      throw CommandLineError.invalidValue(
        option: "--family", value: family,
        reason: "\(directory.path) holds no table for "
          + (missing.count == names.count ? "it" : missing.joined(separator: ", "))
          + " yet; render it first: imgtool render --family \(family) <photos>")
    }
    return try names.map { ($0, try existing(format: $0, arguments, report: report)) }
  }
}

import Foundation
import ImageCaching
import ImageTables
import ImageToolManifest

/// The options every command that reads or writes a cache takes, and how they
/// resolve: `--cache DIR` (else the manifest's, else `.imgtool-cache` here) and
/// `--manifest FILE` (else `imgtool.json` here if there is one, else the built-in).
enum CacheOptions {
  static let specs: [CommandSpec.Option] = [
    .init(
      "cache", value: "dir",
      help: "The cache folder (default: the manifest's, else .imgtool-cache)."),
    .init(
      "manifest", value: "file",
      help: "The formats (default: imgtool.json here if there is one, else the built-in)."),
  ]

  /// `--manifest` alone, for commands that read no cache but use its processors.
  static let manifestSpec = CommandSpec.Option(
    "manifest", value: "file",
    help: "Load the plugins this manifest names (default: imgtool.json here if there is one).")

  /// Loads the plugins the manifest names (`"plugins"`), as a render of it would, so that
  /// `processors` and `apply` know the processors its pipelines use.
  static func loadManifestPlugins(_ arguments: ParsedArguments, context: CommandContext) throws {
    try manifest(arguments).loadPlugins(into: context.registry)
  }

  static func manifest(_ arguments: ParsedArguments) throws(ManifestError) -> Manifest {
    try Manifest.resolve(explicit: arguments.value("manifest"))
  }

  static func directory(_ arguments: ParsedArguments, manifest: Manifest) -> URL {
    manifest.cacheDirectory(override: arguments.value("cache"))
  }

  /// The cache folder of a command that takes it as an optional `<cache-dir>` argument
  /// too (`inspect`, `verify`): that argument, else as ``directory(_:manifest:)`` says.
  /// Both it and `--cache` at once is an error, not a silent choice.
  static func folderToRead(_ arguments: ParsedArguments) throws -> URL {
    if let folder = arguments.positionals.first {
      if arguments.value("cache") != nil {
        throw CommandLineError.conflictingOptions("--cache", "<cache-dir>")
      }
      return URL(fileURLWithPath: folder)
    }
    return directory(arguments, manifest: try manifest(arguments))
  }

  /// The cache the manifest describes (only `family`'s formats when one is given);
  /// table reports (an invalidated table, with the fields that changed; settings
  /// changed in place; damage) go to standard error as `imgtool: warning: ...` lines. `readOnly` opens existing tables without a
  /// lock, for commands that only read; `waitForWriter` waits for another writer.
  static func open(
    _ arguments: ParsedArguments, context: CommandContext, workers: Int? = nil,
    batch: Bool = false, family: String? = nil, readOnly: Bool = false,
    waitForWriter: Bool = false
  ) throws -> (Manifest, ImageCache) {
    let manifest = try manifest(arguments)
    // Its pipelines may name processors of its plugins.
    try manifest.loadPlugins(into: context.registry)
    let console = context.console
    var configuration = CacheConfiguration(
      directory: directory(arguments, manifest: manifest),
      formats: family.map { manifest.formats(family: $0) } ?? manifest.formats,
      device: manifest.device, background: manifest.background, registry: context.registry,
      workers: workers ?? ProcessInfo.processInfo.activeProcessorCount,
      report: { console.err("imgtool: warning: \($0)") }, releasesWrittenPages: batch)
    configuration.readOnly = readOnly
    configuration.failOn = try FailOnOption.level(arguments)  // --fail-on, where a command has it
    // --decode-timeout, likewise
    configuration.decodeTimeout = try DecodeTimeoutOption.limit(arguments)
    // --max-decode-memory, likewise
    configuration.limits = try DecodeMemoryOption.limits(arguments, configuration.limits)
    configuration.waitForWriter = waitForWriter
    configuration.maxReaders = manifest.maxReaders ?? configuration.maxReaders
    let cache: ImageCache
    do {
      cache = try ImageCache(configuration: configuration)
    } catch {
      guard case .invalidPipeline(let format, let reason) = error else { throw error }
      // A pipeline is the manifest's text: name the file it is in.
      let index = manifest.formats.firstIndex { $0.name == format }
      throw ManifestError.invalidField(
        path: manifest.origin, field: index.map { "formats[\($0)].pipeline" } ?? "pipeline",
        message: "format '\(format)': \(reason)")
    }
    return (manifest, cache)
  }
}

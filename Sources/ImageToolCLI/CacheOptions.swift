import Foundation
import ImageCaching
import ImageTables

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

  static func manifest(_ arguments: ParsedArguments) throws(ManifestError) -> Manifest {
    try Manifest.resolve(explicit: arguments.value("manifest"))
  }

  static func directory(_ arguments: ParsedArguments, manifest: Manifest) -> URL {
    manifest.cacheDirectory(override: arguments.value("cache"))
  }

  /// The cache the manifest describes; table reports go to standard error.
  static func open(
    _ arguments: ParsedArguments, context: CommandContext, workers: Int? = nil,
    batch: Bool = false
  ) throws -> (Manifest, ImageCache) {
    let manifest = try manifest(arguments)
    // Its pipelines may name processors of its plugins.
    try manifest.loadPlugins(into: context.registry)
    let console = context.console
    let cache = try ImageCache(
      configuration: CacheConfiguration(
        directory: directory(arguments, manifest: manifest), formats: manifest.formats,
        device: manifest.device, background: manifest.background, registry: context.registry,
        workers: workers ?? ProcessInfo.processInfo.activeProcessorCount,
        report: { console.err("imgtool: \($0)") }, releasesWrittenPages: batch))
    return (manifest, cache)
  }
}

import ImageToolManifest

/// `imgtool manifest`: the formats in effect, as an imgtool.json to start from.
public struct ManifestCommand: Command {
  public init() {}

  public let spec = CommandSpec(
    name: "manifest",
    abstract: "Print the manifest in effect (imgtool.json here, --manifest, or the built-in).",
    discussion: """
      Prints it as JSON: save it as imgtool.json and edit it to make your own formats. \
      The built-in has the families avatar (32, 64 and 128 point squares at 2x, attention \
      crop, circle) and photo (a thumbnail and a screen-sized fit). With --check FILE, \
      reads FILE as a render would, builds every format's pipeline with the processors \
      registered (built-ins, any --plugin and the manifest's plugins), and names every mistake; nothing is printed \
      but the verdict.
      """,
    options: [
      CacheOptions.specs[1],
      .init(
        "check", value: "file",
        help: "Validate this manifest: every field and every pipeline; exit 1 if wrong."),
    ]
  )

  public func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> Int32 {
    guard let path = arguments.value("check") else {
      let manifest = try CacheOptions.manifest(arguments)
      context.console.out(manifest.json.pretty)
      return ExitCode.success
    }
    if arguments.value("manifest") != nil {
      throw CommandLineError.conflictingOptions("--check", "--manifest")
    }
    let manifest: Manifest
    var problems: [String]
    do {
      let read = try Manifest.read(path: path)
      manifest = read.manifest
      problems = read.problems.map { "\($0)" }
    } catch {
      context.console.err("imgtool: \(error)")
      return ExitCode.failure
    }
    // Its pipelines may name the processors of its own plugins.
    do {
      try manifest.loadPlugins(into: context.registry)
    } catch {
      problems.append("\(error)")
    }
    for format in manifest.formats {
      do {
        _ = try context.registry.pipeline(format.pipeline.isEmpty ? "fit" : format.pipeline)
      } catch {
        problems.append("\(path): format '\(format.name)': pipeline: \(error)")
      }
    }
    guard problems.isEmpty else {
      problems.forEach { context.console.err("imgtool: \($0)") }
      return ExitCode.failure
    }
    let families = manifest.families.count
    context.console.out(
      "\(path): valid: \(manifest.formats.count) format\(manifest.formats.count == 1 ? "" : "s") "
        + "in \(families) famil\(families == 1 ? "y" : "ies"), every pipeline builds")
    return ExitCode.success
  }
}

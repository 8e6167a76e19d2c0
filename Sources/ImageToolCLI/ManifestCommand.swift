/// `imgtool manifest`: the formats in effect, as an imgtool.json to start from.
public struct ManifestCommand: Command {
  public init() {}

  public let spec = CommandSpec(
    name: "manifest",
    abstract: "Print the manifest in effect (imgtool.json here, --manifest, or the built-in).",
    discussion: """
      Prints it as JSON: save it as imgtool.json and edit it to make your own formats. \
      The built-in has the families avatar (32, 64 and 128 point squares at 2x, attention \
      crop, circle) and photo (a thumbnail and a screen-sized fit).
      """,
    options: [CacheOptions.specs[1]]
  )

  public func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> Int32 {
    let manifest = try CacheOptions.manifest(arguments)
    context.console.out(manifest.json.pretty)
    return ExitCode.success
  }
}

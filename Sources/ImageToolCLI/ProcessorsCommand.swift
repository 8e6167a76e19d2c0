import ImageProcessing
import ImageToolManifest

/// `imgtool processors`: every processor a pipeline can name, plugins included.
public struct ProcessorsCommand: Command {
  public init() {}

  public let spec = CommandSpec(
    name: "processors",
    abstract: "List the processors pipelines can use, with their parameters.",
    discussion: """
      A format's pipeline is one line of processors joined by '|', arguments by name: \
      fill(crop: attention) | circle | border(width: 2, color: "#ffffff"). Lengths are in \
      points. Processors from --plugin libraries, and from the plugins the manifest names \
      (imgtool.json here, or --manifest), are listed too.
      """,
    options: [
      .init("json", help: "Print one JSON array of processors."), CacheOptions.manifestSpec,
    ]
  )

  public func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> Int32 {
    try CacheOptions.loadManifestPlugins(arguments, context: context)
    let definitions = context.registry.all
    if arguments.flag("json") {
      let list = definitions.map { definition in
        JSONValue.object([
          ("name", .string(definition.name)), ("version", .integer(definition.version)),
          ("summary", .string(definition.summary)), ("signature", .string(definition.signature)),
          (
            "parameters",
            .array(
              definition.parameters.map { parameter in
                .object([
                  ("name", .string(parameter.name)), ("kind", .string(parameter.kind.signature)),
                  ("default", parameter.defaultValue.map { .string($0.description) } ?? .null),
                  ("summary", .string(parameter.summary)),
                ])
              })
          ),
        ])
      }
      context.console.out(JSONValue.array(list).text)
      return ExitCode.success
    }
    for definition in definitions {
      context.console.out("\(definition.signature)")
      context.console.out("    \(definition.summary) (version \(definition.version))")
      for parameter in definition.parameters {
        context.console.out("    \(parameter.name): \(parameter.summary)")
      }
    }
    return ExitCode.success
  }
}

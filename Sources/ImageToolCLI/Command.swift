import ImageProcessing

/// One `imgtool` subcommand.
///
/// A command declares what it accepts as a ``CommandSpec`` (from which its usage and
/// `--help` are made) and runs with arguments already parsed against it.
public protocol Command: Sendable {
  var spec: CommandSpec { get }
  /// The name and one-line abstract, for finding the command and listing it: cheap,
  /// where building the whole ``spec`` may not be. By default, the spec's.
  var listing: (name: String, abstract: String) { get }
  /// Runs the command and returns its exit status.
  func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> Int32
}

extension Command {
  public var listing: (name: String, abstract: String) { (spec.name, spec.abstract) }
}

/// What every command runs with: where to write, and the processors registered
/// (built-ins and any `--plugin`).
public struct CommandContext: Sendable {
  public var console: Console
  public var registry: ProcessorRegistry

  public init(console: Console, registry: ProcessorRegistry) {
    self.console = console
    self.registry = registry
  }
}

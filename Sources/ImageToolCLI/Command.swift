/// One `imgtool` subcommand.
///
/// A command declares what it accepts as a ``CommandSpec`` (from which its usage and
/// `--help` are made) and runs with arguments already parsed against it.
public protocol Command: Sendable {
  var spec: CommandSpec { get }
  /// Runs the command and returns its exit status.
  func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32
}

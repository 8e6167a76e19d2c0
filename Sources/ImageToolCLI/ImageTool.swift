import ImageProcessing
import ImageToolVersion
import Vips

/// The `imgtool` command line as a library: `main.swift` only calls ``run(_:console:)``.
///
/// ```swift
/// let status = await ImageTool().run(["info", "photo.jpg"])
/// ```
public struct ImageTool: Sendable {
  /// ImageTool's version (``ImageToolVersion/number``, which the `imgtool` launcher
  /// prints for `--version` without loading this library).
  public static let version = ImageToolVersion.number

  public var commands: [any Command]
  /// The processors pipelines can name; `--plugin` adds to it.
  public var registry: ProcessorRegistry

  public init(
    commands: [any Command] = ImageTool.standardCommands,
    registry: ProcessorRegistry = .withBuiltIns()
  ) {
    self.commands = commands
    self.registry = registry
  }

  /// Every built-in subcommand, in the order `--help` lists them.
  public static var standardCommands: [any Command] {
    [
      RenderCommand(), InfoCommand(), ManifestCommand(), ProcessorsCommand(), ApplyCommand(),
      ExportCommand(), SheetCommand(), BrowseCommand(), InspectCommand(), VerifyCommand(),
      BenchCommand(), MergeCommand(),
    ]
  }

  static let overview = """
    Render photos once into every size a family of formats needs, keep the pixels in \
    memory-mapped tables, and serve them back with no decode and no copy.
    """

  /// Runs one command line (without the program name) and returns the exit status.
  public func run(_ arguments: [String], console: Console = .standard) async -> Int32 {
    var arguments = arguments[...]
    // Global options before the subcommand: --plugin PATH (any number of times).
    while let option = arguments.first, option == "--plugin" || option.hasPrefix("--plugin=") {
      arguments = arguments.dropFirst()
      var path = String(option.dropFirst("--plugin=".count))
      if option == "--plugin" {
        guard let next = arguments.first else {
          return usageError(.missingValue(option: "--plugin", valueName: "path"), console)
        }
        path = next
        arguments = arguments.dropFirst()
      }
      do {
        try PluginLoader.load(path: path, into: registry)
      } catch {
        console.err("imgtool: \(error)")
        return ExitCode.failure
      }
    }
    guard let first = arguments.first else {
      console.err(rootHelp)
      return ExitCode.usage
    }
    switch first {
    case "--help", "-h":
      console.out(rootHelp)
      return ExitCode.success
    case "--version":
      // As the launcher prints it, which does not load libvips; --verbose names the
      // libvips this engine runs with.
      switch arguments.dropFirst().first {
      case nil: console.out("imgtool \(Self.version)")
      case "--verbose": console.out("imgtool \(Self.version) (libvips \(Vips.version))")
      case let other?: return usageError(.unknownOption(other, suggestion: "--verbose"), console)
      }
      return ExitCode.success
    case "help":
      arguments = arguments.dropFirst()
      guard let name = arguments.first else {
        console.out(rootHelp)
        return ExitCode.success
      }
      if name == "help" {
        console.out(helpHelp)
        return ExitCode.success
      }
      guard let command = command(named: name) else {
        return usageError(.unknownCommand(name, suggestion: suggestion(for: name)), console)
      }
      console.out(HelpFormatter.help(for: command.spec))
      return ExitCode.success
    default:
      break
    }
    guard let command = command(named: first) else {
      let error: CommandLineError =
        first.hasPrefix("-")
        ? .unknownOption(first, suggestion: nil)
        : .unknownCommand(first, suggestion: suggestion(for: first))
      return usageError(error, console)
    }
    do {
      let parsed = try ArgumentParser.parse(Array(arguments.dropFirst()), for: command.spec)
      if parsed.flag("help") {
        console.out(HelpFormatter.help(for: command.spec))
        return ExitCode.success
      }
      return try await command.run(
        parsed, context: CommandContext(console: console, registry: registry))
    } catch let error as CommandLineError {
      return usageError(error, console, spec: command.spec)
    } catch {
      console.err("imgtool: \(error)")
      return ExitCode.of(error)
    }
  }

  private func command(named name: String) -> (any Command)? {
    commands.first { $0.listing.name == name }
  }

  private func suggestion(for name: String) -> String? {
    Suggestion.closest(to: name, among: commands.map(\.listing.name))
  }

  private func usageError(_ error: CommandLineError, _ console: Console, spec: CommandSpec? = nil)
    -> Int32
  {
    console.err("imgtool: \(error)")
    if let spec {
      console.err("Usage: \(HelpFormatter.usage(of: spec))")
      console.err("  See 'imgtool help \(spec.name)' for more.")
    } else {
      console.err("Usage: imgtool <subcommand>")
      console.err("  See 'imgtool --help' for the subcommands.")
    }
    return ExitCode.usage
  }

  var helpHelp: String {
    [
      "OVERVIEW: Show help for imgtool or one of its subcommands.", "",
      "USAGE: imgtool help [<subcommand>]", "", "ARGUMENTS:",
      HelpFormatter.row("<subcommand>", "The subcommand to explain (default: all of them)."),
      "", "  'imgtool <subcommand> --help' shows the same.",
    ].joined(separator: "\n")
  }

  var rootHelp: String {
    var lines = HelpFormatter.wrap("OVERVIEW: \(Self.overview)", width: 80, indent: "")
    lines += [
      "", "USAGE: imgtool [--plugin <path> ...] <subcommand>", "", "OPTIONS:",
      HelpFormatter.row(
        "--plugin <path>", "Load a processor plugin (a shared library) first; repeatable."),
      HelpFormatter.row(
        "--version [--verbose]", "Show the version (--verbose: and libvips's version)."),
      HelpFormatter.row("-h, --help", "Show help information."), "", "SUBCOMMANDS:",
    ]
    lines += commands.map { HelpFormatter.row($0.listing.name, $0.listing.abstract) }
    lines.append(HelpFormatter.row("help", "Show help for imgtool or one of its subcommands."))
    lines += [
      "", "  See 'imgtool help <subcommand>' for detailed help.", "",
      "EXIT STATUS: 0 when everything was done, 1 when some input failed (the rest was",
      "done), 64 when the command line was wrong, 69 when the engine library beside the",
      "imgtool executable is missing or cannot be loaded, 75 when nothing was done because",
      "another process is writing the cache (run again later, or with --wait).",
    ]
    return lines.joined(separator: "\n")
  }
}

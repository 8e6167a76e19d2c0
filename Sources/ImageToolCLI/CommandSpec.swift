/// What a command accepts, from which its parsing and its help are both made.
public struct CommandSpec: Sendable {
  /// One `--long` option: a flag, or an option with a value.
  public struct Option: Sendable {
    public var name: String
    public var short: Character?
    /// The value's placeholder in help (`<dir>`); `nil` for a flag.
    public var valueName: String?
    public var help: String
    /// Whether the option may be given more than once (all values are kept).
    public var repeats: Bool
    /// Whether the command cannot run without it: help shows it without brackets, and
    /// the parser reports it missing before the command runs.
    public var required: Bool

    public init(
      _ name: String, short: Character? = nil, value valueName: String? = nil, help: String,
      repeats: Bool = false, required: Bool = false
    ) {
      self.name = name
      self.short = short
      self.valueName = valueName
      self.help = help
      self.repeats = repeats
      self.required = required
    }

    var isFlag: Bool { valueName == nil }
  }

  /// One positional argument.
  public struct Argument: Sendable {
    public var name: String
    public var help: String
    /// One or more (`<file> ...`) rather than exactly one.
    public var repeats: Bool
    public var optional: Bool

    public init(_ name: String, help: String, repeats: Bool = false, optional: Bool = false) {
      self.name = name
      self.help = help
      self.repeats = repeats
      self.optional = optional
    }
  }

  public var name: String
  public var abstract: String
  /// The paragraph help prints below the options. Made only when help is shown: render's
  /// names the extensions libvips's loaders declare, which costs loading its modules.
  public var discussion: String { makeDiscussion() }
  private let makeDiscussion: @Sendable () -> String
  public var options: [Option]
  public var arguments: [Argument]

  public init(
    name: String, abstract: String,
    discussion: @autoclosure @escaping @Sendable () -> String = "", options: [Option] = [],
    arguments: [Argument] = []
  ) {
    self.name = name
    self.abstract = abstract
    self.makeDiscussion = discussion
    self.options = options + [Option("help", short: "h", help: "Show help information.")]
    self.arguments = arguments
  }
}

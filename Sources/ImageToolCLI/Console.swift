import Foundation

/// Where a command writes: standard output for results, standard error for
/// progress and problems. Tests capture both.
public struct Console: Sendable {
  public var out: @Sendable (String) -> Void
  public var err: @Sendable (String) -> Void
  /// Whether standard error is a terminal (progress bars) rather than a file or pipe.
  public var errIsTerminal: Bool

  public init(
    out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void,
    errIsTerminal: Bool = false
  ) {
    self.out = out
    self.err = err
    self.errIsTerminal = errIsTerminal
  }

  /// The process's own standard output and standard error.
  public static let standard = Console(
    out: { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) },
    err: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) },
    errIsTerminal: isatty(STDERR_FILENO) == 1)
}

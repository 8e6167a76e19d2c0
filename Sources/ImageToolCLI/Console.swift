import Foundation

/// Where a command writes: standard output for results, standard error for
/// progress and problems. Tests capture both.
public struct Console: Sendable {
  public var out: @Sendable (String) -> Void
  public var err: @Sendable (String) -> Void
  /// Whether standard error is a terminal (progress bars) rather than a file or pipe.
  public var errIsTerminal: Bool
  /// Redraws the one status line at the bottom of a terminal (a progress bar);
  /// an empty string clears it.
  public var status: @Sendable (String) -> Void

  public init(
    out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void,
    errIsTerminal: Bool = false, status: @escaping @Sendable (String) -> Void = { _ in }
  ) {
    self.out = out
    self.err = err
    self.errIsTerminal = errIsTerminal
    self.status = status
  }

  /// The process's own standard output and standard error.
  public static let standard = Console(
    out: { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) },
    err: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) },
    errIsTerminal: isatty(STDERR_FILENO) == 1,
    status: { FileHandle.standardError.write(Data(("\r\u{1B}[K" + $0).utf8)) })
}

/// The exit statuses of `imgtool`, as documented in `imgtool --help`.
public enum ExitCode {
  /// Everything asked for was done.
  public static let success: Int32 = 0
  /// Some inputs failed; the others were done.
  public static let failure: Int32 = 1
  /// The command line was wrong (sysexits' EX_USAGE, as swift-argument-parser uses).
  public static let usage: Int32 = 64
}

import CacheSharding
import ImageCaching
import ImageTables

/// The exit statuses of `imgtool`, as documented in `imgtool --help`.
public enum ExitCode {
  /// Everything asked for was done.
  public static let success: Int32 = 0
  /// Some inputs failed; the others were done.
  public static let failure: Int32 = 1
  /// The command line was wrong (sysexits' EX_USAGE, as swift-argument-parser uses).
  public static let usage: Int32 = 64
  /// Nothing was done because another process is writing the cache: run again later, or
  /// with `--wait` (sysexits' EX_TEMPFAIL, "the user is invited to retry").
  public static let busy: Int32 = 75

  /// The status of a command that stopped on `error`: ``busy`` when another process held
  /// a table's writer lock, else ``failure``.
  static func of(_ error: any Error) -> Int32 {
    switch error {
    case CacheError.table(_, .lockedByAnotherWriter), ImageTableError.lockedByAnotherWriter,
      MergeError.outputBusy:
      busy
    default:
      failure
    }
  }
}

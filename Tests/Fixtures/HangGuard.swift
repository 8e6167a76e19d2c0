import Testing

extension TimeLimitTrait.Duration {
  /// The time limit of a test that waits on other tasks or threads: a guard against a
  /// hang, longer than any guarded test's wall time in a full run (3.2 minutes at most
  /// in a plain run here), not a measure of speed.
  ///
  /// Swift Testing starts every test of a run at once, so a test's wall time includes the
  /// work of the hundreds of others that share the machine's cooperative threads (two
  /// here) with it: one-minute limits ran out in clean-clone CI runs on tests whose work
  /// takes a second (the photo models' streams waited for a thread). A hang still fails
  /// well before CI's own limit. Speed is measured by the benchmarks, never here.
  ///
  /// ```swift
  /// @Suite("Photo loading", .timeLimit(.hangGuard))
  /// ```
  public static var hangGuard: Self { .minutes(10) }
}

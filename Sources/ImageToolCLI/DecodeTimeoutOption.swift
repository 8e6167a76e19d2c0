import Vips

/// `--decode-timeout SECONDS`, for the commands that decode photos (`render`, `apply`,
/// `info`): the longest one photo's decode and processing may take before it fails alone
/// (``ImageCaching/CacheConfiguration/decodeTimeout``). Not `--timeout`: `render` has
/// that already, for a URL's download (``URLOptions``).
enum DecodeTimeoutOption {
  /// The limit when none is given.
  static let defaultSeconds = 30.0

  static let spec = CommandSpec.Option(
    "decode-timeout", value: "seconds",
    help: "The longest one photo's decode and processing may take, in seconds (default 30; "
      + "fractions such as 0.5 too; a URL's download is not counted): a photo that takes longer fails alone, \"took longer "
      + "than N s\", and the others go on.")

  /// The limit given, else the default.
  static func limit(_ arguments: ParsedArguments) throws(CommandLineError) -> Duration {
    guard let text = arguments.value("decode-timeout") else { return .seconds(defaultSeconds) }
    guard let seconds = Double(text), seconds.isFinite else {
      throw .invalidValue(
        option: "--decode-timeout", value: text,
        reason: "expected a number of seconds, like 30 or 0.5")
    }
    // Above a day is surely a slip; Duration holds any of these exactly enough.
    guard seconds > 0, seconds <= 86_400 else {
      throw .invalidValue(
        option: "--decode-timeout", value: text,
        reason: "expected more than 0 and at most 86400 seconds (one day)")
    }
    return .seconds(seconds)
  }

  /// Runs `body`, one photo's decode and processing, under the limit given.
  static func bounded<T>(
    _ limit: Duration, source: String, _ body: () throws(VipsError) -> T
  ) throws(VipsError) -> T {
    try Vips.withTimeLimit(limit, source: source, timedOut: { $0 }, body)
  }
}

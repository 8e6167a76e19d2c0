import Vips

/// `--fail-on LEVEL`, for the commands that decode photos (`render`, `apply`, `info`): how
/// damaged a photo may be and still be drawn (libvips's `fail_on`, ``FailOn``).
enum FailOnOption {
  static let spec = CommandSpec.Option(
    "fail-on", value: "level",
    help: "How damaged a photo may be: none (draw what decodes), truncated (the default: "
      + "refuse a file cut short or a JPEG whose scan runs out of data, draw a JPEG "
      + "missing only its end marker), error, or "
      + "warning (refuse any libvips warning).")

  /// The level given, else the default (``FailOn/truncated``).
  static func level(_ arguments: ParsedArguments) throws(CommandLineError) -> FailOn {
    guard let text = arguments.value("fail-on") else { return .truncated }
    guard let level = FailOn(rawValue: text.lowercased()) else {
      throw .invalidValue(
        option: "--fail-on", value: text,
        reason: "expected \(FailOn.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    return level
  }
}

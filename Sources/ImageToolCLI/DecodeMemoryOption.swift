import Vips

/// `--max-decode-memory MIB`, for the commands that decode photos (`render`, `apply`,
/// `info`): the most memory one photo's decode may take, estimated from its header
/// before any pixel is decoded (``Vips/ImageLimits/maxDecodeMemory``, ``Vips/DecodeMemory``).
/// Given, it is a hard limit; without it a file may take 200 MiB, or 200 bytes for each
/// of its bytes when that is more (``Vips/ImageLimits/decodeMemoryPerFileByte``).
enum DecodeMemoryOption {
  static let spec = CommandSpec.Option(
    "max-decode-memory", value: "MiB",
    help: "The most memory one photo's decode may take, in MiB, estimated from its header: "
      + "a photo that would take more is refused before decoding, and the others go on. "
      + "Without it: 200 MiB, or 200 bytes for each byte of the photo's file when that is "
      + "more (a large file holds a real photo that needs it; a small one asking for more "
      + "is a decompression bomb).")

  /// `limits` with the memory given as a hard limit, else as they are.
  static func limits(_ arguments: ParsedArguments, _ limits: ImageLimits = .standard)
    throws(CommandLineError) -> ImageLimits
  {
    var limits = limits
    guard arguments.value("max-decode-memory") != nil else { return limits }
    limits.maxDecodeMemory =
      try arguments.integer("max-decode-memory", in: 1...(1 << 24), default: 0) << 20
    limits.decodeMemoryPerFileByte = 0
    return limits
  }
}

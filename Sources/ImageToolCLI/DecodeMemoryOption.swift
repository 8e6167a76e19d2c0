import Vips

/// `--max-decode-memory MIB`, for the commands that decode photos (`render`, `apply`,
/// `info`): the most memory one photo's decode may take, estimated from its header
/// before any pixel is decoded (``Vips/ImageLimits/maxDecodeMemory``, ``Vips/DecodeMemory``).
/// A file larger than a 200th of it may take 200 bytes for each of its bytes.
enum DecodeMemoryOption {
  static let spec = CommandSpec.Option(
    "max-decode-memory", value: "MiB",
    help: "The most memory one photo's decode may take, in MiB, estimated from its header "
      + "(default 200; a file larger than a 200th of it may take 200 bytes for each of its "
      + "bytes): a photo that would take more is refused before decoding, as a "
      + "decompression bomb, and the others go on.")

  /// `limits` with the memory given, else as they are.
  static func limits(_ arguments: ParsedArguments, _ limits: ImageLimits = .standard)
    throws(CommandLineError) -> ImageLimits
  {
    var limits = limits
    limits.maxDecodeMemory =
      try arguments.integer(
        "max-decode-memory", in: 1...(1 << 24), default: limits.maxDecodeMemory >> 20) << 20
    return limits
  }
}

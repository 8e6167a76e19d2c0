import CVipsShim

/// Keeps a codec's own debug trace out of what a person reads on standard error.
///
/// Debian's libjxl prints its internal failure trace as it refuses damaged data, a line
/// per stack frame (`./lib/jxl/dec_bit_reader.h:212: JXL_FAILURE: Non-zero padding
/// bits`), before the refusal that already says the JPEG XL data is damaged. It writes
/// them with an internal `vfprintf` to C's `stderr`, so no function can be replaced to
/// stop them. ``dropFromStandardError()`` puts a line filter on C's `stderr` that drops
/// lines beginning with libjxl's source paths (`./lib/jxl/`, `lib/jxl/`) and passes
/// every other byte on (GLib's warnings, the Swift runtime's fatal-error messages);
/// writes straight to file descriptor 2 (the command line's own, through `FileHandle`)
/// do not go through it.
///
/// The command line installs it; a library leaves its host's standard error alone.
public enum CodecDebugLines {
  /// Installs the filter on C's `stderr`, once for the process.
  public static func dropFromStandardError() {
    cvips_drop_codec_debug_lines()
  }

  /// What the filter passes on when C code writes `chunks` to `stderr`, one write each
  /// (for tests: the filter holds a line's first bytes across writes).
  static func passedOn(_ chunks: [String]) -> String {
    var filter = CodecDebugFilter()
    var passed: [UInt8] = []
    for chunk in chunks {
      let bytes = Array(chunk.utf8)
      var out = [CChar](repeating: 0, count: bytes.count + 16)
      let count = bytes.withUnsafeBufferPointer { data in
        data.withMemoryRebound(to: CChar.self) {
          cvips_codec_debug_filter(&filter, $0.baseAddress, $0.count, &out)
        }
      }
      passed += out[..<count].map { UInt8(bitPattern: $0) }
    }
    return String(decoding: passed, as: UTF8.self)
  }
}

import Testing

@testable import Vips

/// The filter on C's `stderr` that the command line installs: libjxl's trace lines go,
/// every other byte passes, however the writes split the lines.
@Suite struct CodecDebugLinesTests {
  /// The four lines Debian's libjxl printed for Tests/Fixtures/corpora/fuzz's
  /// jxl-bad-frame-header.jxl, between two lines of someone else's.
  static let trace = [
    "./lib/jxl/dec_bit_reader.h:212: JXL_FAILURE: Non-zero padding bits\n",
    "./lib/jxl/toc.cc:58: JXL_RETURN_IF_ERROR code=1: reader->JumpToByteBoundary()\n",
    "./lib/jxl/dec_frame.cc:169: JXL_RETURN_IF_ERROR code=1: ReadToc(toc_entries, br)\n",
    "./lib/jxl/decode.cc:1298: invalid frame header\n",
  ]

  @Test func libjxlsTraceIsDroppedAndOtherLinesPass() {
    let text = "(imgtool:42): GLib-WARNING **: before\n" + Self.trace.joined() + "after\n"
    #expect(
      CodecDebugLines.passedOn([text]) == "(imgtool:42): GLib-WARNING **: before\nafter\n")
    #expect(CodecDebugLines.passedOn(Self.trace) == "")
    #expect(CodecDebugLines.passedOn(["lib/jxl/render.cc:7: no\n", "yes\n"]) == "yes\n")
  }

  /// stdio may hand the filter a line in pieces: a piece too short to tell is held
  /// until the line shows whose it is, and nothing else is held.
  @Test func linesSplitAcrossWritesAreJudgedWhole() {
    let pieces = ["./lib/j", "xl/decode.cc:1298: invalid ", "frame header\n", "./lib", "rary\n"]
    #expect(CodecDebugLines.passedOn(pieces) == "./library\n")
    #expect(CodecDebugLines.passedOn(["li", "b/jpeg: fine", "\n"]) == "lib/jpeg: fine\n")
    // Byte by byte.
    let bytes = (Self.trace[0] + "kept\n").map { String($0) }
    #expect(CodecDebugLines.passedOn(bytes) == "kept\n")
  }

  /// Only the start of a line counts: a path mentioned later, an empty line, a line
  /// without its end once it shows it is not libjxl's, and text beyond ASCII pass as they
  /// are; a line's first bytes that may still be libjxl's are held (the command line
  /// writes them at exit).
  @Test func onlyALineThatBeginsWithLibjxlsPathIsDropped() {
    #expect(
      CodecDebugLines.passedOn(["see ./lib/jxl/decode.cc:1: x\n"])
        == "see ./lib/jxl/decode.cc:1: x\n")
    #expect(CodecDebugLines.passedOn(["\n", "\n"]) == "\n\n")
    #expect(CodecDebugLines.passedOn(["no end of line"]) == "no end of line")
    #expect(CodecDebugLines.passedOn(["./li"]) == "")  // held: it may still be libjxl's
    #expect(CodecDebugLines.passedOn(["caf\u{E9} \u{1F600}\n"]) == "caf\u{E9} \u{1F600}\n")
  }
}

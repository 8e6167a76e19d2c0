import Testing

@testable import ImageToolCLI

/// `imgtool verify` ends what it names with what puts it right: a plain render clears
/// damaged records and lookup buckets, but reads no pixels, so an entry whose pixels fail
/// needs `render --force` (found by Scripts/damage-sweep: its only runs left unhealed).
@Suite("verify's hint")
struct VerifyHintTests {
  @Test func theHintSaysWhatPutsEachKindOfDamageRight() {
    #expect(VerifyCommand.hint([]) == nil)
    #expect(
      VerifyCommand.hint(["its pixels fail their checksum", "its pixels fail their checksum"])
        == "`imgtool render --force` of the photos named draws their entries again "
        + "(a plain render reads the index only, not the pixels)")
    #expect(
      VerifyCommand.hint(["its record fails its checksum", "its pixels fail their checksum"])
        == "the next `imgtool render` clears the rest; entries whose pixels fail their "
        + "checksum are drawn again only by `imgtool render --force` of their photos")
    #expect(
      VerifyCommand.hint(["its write never finished"])
        == "the next `imgtool render` into this cache clears what is damaged")
  }
}

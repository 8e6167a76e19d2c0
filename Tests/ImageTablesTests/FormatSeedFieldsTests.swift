import Testing

@testable import ImageTables

/// The fields `FICImageFormat` has and how they behave there: an optional family,
/// `bitsPerComponent` and `isGrayscale`.
@Suite("Format fields of FICImageFormat")
struct FormatSeedFieldsTests {
  @Test func familyIsOptionalAndDefaultsToTheName() throws {
    let alone = try ImageFormat(name: "avatar.small", width: 32, height: 32)
    #expect(alone.family == "avatar.small")
    // The default is the name itself: the same format, so the same fingerprint.
    let explicit = try ImageFormat(
      name: "avatar.small", family: "avatar.small", width: 32, height: 32)
    #expect(alone == explicit)
    #expect(
      alone.fingerprint(processorIdentifiers: ["fit@1"])
        == explicit.fingerprint(processorIdentifiers: ["fit@1"]))
    #expect(alone.fingerprint().dictionary["family"] == "avatar.small")
    let named = try ImageFormat(name: "avatar.small", family: "avatar", width: 32, height: 32)
    #expect(named.fingerprint().changedFields(from: alone.fingerprint()) == ["family"])
    // A bad name is reported as the name, not as the family it would default to.
    #expect(
      throws: ImageFormatError.invalidName(
        field: "name", value: "../x",
        reason: "use 1 to 128 letters, digits, '.', '_' and '-' (never a path)")
    ) { try ImageFormat(name: "../x", width: 1, height: 1) }
  }

  @Test func bitsPerComponentAndIsGrayscaleFollowTheStyle() throws {
    var seen: [PixelStyle: (Int, Bool)] = [:]
    for style in PixelStyle.allCases {
      let format = try ImageFormat(name: "f", width: 1, height: 1, style: style)
      seen[style] = (format.bitsPerComponent, format.isGrayscale)
      // White stored in the style: its largest component is 2^bits - 1 in the bytes.
      var bytes = [UInt8](repeating: 0, count: 4)
      bytes.withUnsafeMutableBytes { style.store(RGBA(255, 255, 255), at: $0.baseAddress!) }
      let largest: Int
      switch style {
      case .bgr555:
        let word = Int(bytes[0]) | Int(bytes[1]) << 8
        #expect(word == 0x7FFF)
        largest = word & 0x1F
      case .gray8: largest = Int(bytes[0])
      case .bgra32, .bgr32: largest = Int(bytes[2])
      }
      #expect(largest == (1 << format.bitsPerComponent) - 1, "\(style)")
    }
    #expect(seen[.bgra32]! == (8, false) && seen[.bgr32]! == (8, false))
    #expect(seen[.bgr555]! == (5, false) && seen[.gray8]! == (8, true))
  }
}

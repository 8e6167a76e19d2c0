import Testing

@testable import ImageTables

@Suite("Formats")
struct FormatTests {
  @Test func namesAreDataNotPaths() {
    for bad in [
      "", ".", "..", "../etc", "a/b", "a b", "naïve", "x\n", String(repeating: "a", count: 129),
    ] {
      #expect(throws: ImageFormatError.self, "\(bad)") {
        try ImageFormat(name: bad, family: "f", width: 1, height: 1)
      }
      #expect(throws: ImageFormatError.self) {
        try ImageFormat(name: "ok", family: bad, width: 1, height: 1)
      }
    }
    for good in ["avatar.small", "photo_thumb-2", "A.b-c_9"] {
      #expect(ImageFormat.isValidName(good))
    }
  }

  @Test func valuesAreChecked() {
    #expect(
      throws: ImageFormatError.invalidValue(format: "f", field: "scale", reason: "0 must be 1 to 8")
    ) {
      try ImageFormat(name: "f", family: "f", width: 10, height: 10, scale: 0)
    }
    #expect(throws: ImageFormatError.self) {
      try ImageFormat(name: "f", family: "f", width: 0, height: 10)
    }
    #expect(throws: ImageFormatError.self) {
      try ImageFormat(name: "f", family: "f", width: 10, height: 10, maximumCount: 0)
    }
    #expect(throws: ImageFormatError.self) {
      try ImageFormat(name: "f", family: "f", width: 10, height: 10, devices: [])
    }
  }

  @Test func pixelSizeIsPointsTimesScale() throws {
    let format = try ImageFormat(name: "a", family: "f", width: 32, height: 20, scale: 3)
    #expect((format.pixelWidth, format.pixelHeight) == (96, 60))
    #expect(format.layout.width == 96)
  }

  @Test func devicesDecideWhereATableIsKept() throws {
    let phoneOnly = try ImageFormat(name: "a", family: "f", width: 1, height: 1, devices: [.phone])
    #expect(phoneOnly.isKept(for: .phone) && !phoneOnly.isKept(for: .desktop))
  }

  /// Every field, and the processors' identifiers, change the fingerprint.
  @Test func fingerprintCoversEveryField() throws {
    let base = try ImageFormat(
      name: "a", family: "f", width: 10, height: 10, scale: 2, style: .bgra32, maximumCount: 5,
      devices: [.phone], protectionMode: .none, pipeline: "fill")
    let variants: [(String, ImageFormat)] = [
      (
        "name",
        try ImageFormat(
          name: "b", family: "f", width: 10, height: 10, scale: 2, maximumCount: 5,
          devices: [.phone], pipeline: "fill")
      ),
      (
        "family",
        try ImageFormat(
          name: "a", family: "g", width: 10, height: 10, scale: 2, maximumCount: 5,
          devices: [.phone], pipeline: "fill")
      ),
      (
        "width",
        try ImageFormat(
          name: "a", family: "f", width: 11, height: 10, scale: 2, maximumCount: 5,
          devices: [.phone], pipeline: "fill")
      ),
      (
        "height",
        try ImageFormat(
          name: "a", family: "f", width: 10, height: 11, scale: 2, maximumCount: 5,
          devices: [.phone], pipeline: "fill")
      ),
      (
        "scale",
        try ImageFormat(
          name: "a", family: "f", width: 10, height: 10, scale: 3, maximumCount: 5,
          devices: [.phone], pipeline: "fill")
      ),
      (
        "style",
        try ImageFormat(
          name: "a", family: "f", width: 10, height: 10, scale: 2, style: .gray8, maximumCount: 5,
          devices: [.phone], pipeline: "fill")
      ),
      (
        "maximumCount",
        try ImageFormat(
          name: "a", family: "f", width: 10, height: 10, scale: 2, maximumCount: 6,
          devices: [.phone], pipeline: "fill")
      ),
      (
        "devices",
        try ImageFormat(
          name: "a", family: "f", width: 10, height: 10, scale: 2, maximumCount: 5,
          devices: [.phone, .tablet], pipeline: "fill")
      ),
      (
        "protectionMode",
        try ImageFormat(
          name: "a", family: "f", width: 10, height: 10, scale: 2, maximumCount: 5,
          devices: [.phone], protectionMode: .complete, pipeline: "fill")
      ),
      (
        "pipeline",
        try ImageFormat(
          name: "a", family: "f", width: 10, height: 10, scale: 2, maximumCount: 5,
          devices: [.phone], pipeline: "fit")
      ),
    ]
    let fingerprint = base.fingerprint(processorIdentifiers: ["fill@1(crop: centre)"])
    for (field, variant) in variants {
      let other = variant.fingerprint(processorIdentifiers: ["fill@1(crop: centre)"])
      #expect(other != fingerprint, "\(field)")
      #expect(other.changedFields(from: fingerprint) == [field])
    }
    let newProcessor = base.fingerprint(processorIdentifiers: ["fill@2(crop: centre)"])
    #expect(newProcessor.changedFields(from: fingerprint) == ["processors"])
    #expect(fingerprint.dictionary["layoutVersion"] == "2")
  }

  @Test func fingerprintTextRoundTrips() throws {
    let format = try ImageFormat(
      name: "a", family: "f", width: 10, height: 10, pipeline: "border(color: \"#fff\")\nweird\\")
    let fingerprint = format.fingerprint(processorIdentifiers: ["x", "y"])
    #expect(FormatFingerprint(text: fingerprint.text) == fingerprint)
    #expect(FormatFingerprint(text: fingerprint.text)?.dictionary["pipeline"] == format.pipeline)
  }

  @Test func protectionModesSetPermissionsAndAvailability() {
    #expect(ProtectionMode.none.filePermissions == 0o644)
    #expect(ProtectionMode.complete.filePermissions == 0o600)
    let state = ProtectionState(locked: true)
    #expect(state.allows(.none))
    #expect(!state.allows(.complete) && !state.allows(.completeUntilFirstUserAuthentication))
    state.unlock()
    #expect(state.allows(.complete) && state.allows(.completeUntilFirstUserAuthentication))
    state.lock()
    #expect(!state.allows(.complete) && state.allows(.completeUntilFirstUserAuthentication))
  }
}

import Testing

@testable import Vips

/// A file no built-in loader knows makes the first thread that meets it load the trusted
/// modules (HEIF, JPEG XL) and look again. A second thread whose lookup failed while the
/// first was loading them finds nothing left to load: it must look again all the same,
/// or its HEIF is refused as "no loader recognises its contents" (seen: two of ten HEIFs
/// checked at once in a fresh test process).
@Suite struct LoaderLookupTests {
  @Test func aLookupThatFailedWhileAnotherThreadLoadedTheModulesLooksAgain() throws {
    try Vips.start()  // a second lookup first clears libvips's error buffer
    "VipsForeignLoadHeifBuffer".withCString { heif in
      var loads = 0
      var lookups = 0
      let found = InputCheck.findLoader(
        {
          lookups += 1
          guard lookups > 1 else {
            loads += 1  // another thread finishes loading the modules meanwhile
            return nil
          }
          return heif
        }, loads: { loads }, loadModules: {})  // nothing left for this thread to load
      #expect(found == heif && lookups == 2)
    }
  }

  @Test func modulesLoadedByThisLookupMeanALookAgain() throws {
    try Vips.start()
    "VipsForeignLoadJxlBuffer".withCString { jxl in
      var loads = 0
      var lookups = 0
      let found = InputCheck.findLoader(
        {
          lookups += 1
          return loads > 0 ? jxl : nil
        }, loads: { loads }, loadModules: { loads += 1 })
      #expect(found == jxl && lookups == 2)
    }
  }

  /// Bytes that are no image at all are looked up once when no module came in: no
  /// second sniff for every such file.
  @Test func aLookupThatFailsWithNoNewModulesIsNotRepeated() throws {
    try Vips.start()
    var lookups = 0
    let found = InputCheck.findLoader(
      {
        lookups += 1
        return nil
      }, loads: { 1 }, loadModules: {})
    #expect(found == nil && lookups == 1)
  }
}

import Foundation
import TestFixtures
import Testing

@testable import Vips

/// Colour management before the attention measure, in thumbnail's order: a photo that
/// still carries its ICC profile is measured as it looks once the profile is applied.
@Suite struct ManagedAttentionTests {
  @Test(
    "the managed measure looks at the colours the profile gives",
    arguments: SwappedPrimaries.Alpha.allCases)
  func managedAttentionSeesManagedColours(alpha: SwappedPrimaries.Alpha) throws {
    let image = try SwappedPrimaries.twoHalves(alpha: alpha)
    #expect(image.isSRGBButForICCProfile)
    let managed = try image.toSRGB().materialized()
    for (width, height) in [(100, 100), (60, 40)] {
      let found = try image.managedAttentionCentre(width: width, height: height)
      #expect(
        try image.attentionCentreInC(width: width, height: height, managed: true) != nil)
      // Measured on the miniature, managed as thumbnail orders it (premultiplied alpha
      // undone for the profile and done again): the centre of the managed image.
      #expect(
        found == (try managed.attentionCentre(width: width, height: height)),
        "\(alpha) \(width)x\(height)")
      if alpha != .squares {
        // As stored, the skin is on the right; once the profile is applied, on the left.
        #expect(try image.attentionCentre(width: width, height: height).x >= 100)
        #expect(found.x < 100)
      }
    }
  }

  /// rocket.jpg's Adobe RGB profile: the managed measure of the photo as stored is the
  /// measure of the photo made sRGB, for every window.
  @Test func aPhotoWithAProfileIsMeasuredAsItLooks() throws {
    let stored = try VipsImage(file: Fixtures.path("rocket.jpg")).materialized()
    #expect(stored.hasICCProfile)
    let managed = try stored.toSRGB().materialized()
    for (width, height) in InMemoryResizeTests.attentionWindows(stored) {
      #expect(
        try stored.managedAttentionCentre(width: width, height: height)
          == managed.attentionCentre(width: width, height: height), "\(width)x\(height)")
    }
  }
}

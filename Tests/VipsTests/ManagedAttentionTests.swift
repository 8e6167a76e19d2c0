import Foundation
import TestFixtures
import Testing

@testable import Vips

/// Colour management before the attention measure, in thumbnail's order: a photo that
/// still carries its ICC profile is measured as it looks once the profile is applied.
@Suite struct ManagedAttentionTests {
  @Test("the managed measure looks at the colours the profile gives", arguments: [false, true])
  func managedAttentionSeesManagedColours(alpha: Bool) throws {
    let image = try SwappedPrimaries.twoHalves(alpha: alpha)
    #expect(image.isSRGBButForICCProfile)
    // As stored, the skin is on the right; once the profile is applied, on the left.
    #expect(try image.attentionCentre(width: 100, height: 100).x >= 100)
    let managed = try image.managedAttentionCentre(width: 100, height: 100)
    #expect(managed.x < 100)
    #expect(try image.attentionCentreInC(width: 100, height: 100, managed: true) != nil)
    let reference = try image.toSRGB().materialized().attentionCentre(width: 100, height: 100)
    #expect(managed == reference)
  }

  @Test func withoutAProfileManagedIsTheSameMeasure() throws {
    let image = try InMemoryResizeTests.decoded(#require(Fixture.named("rocket.jpg")))
    #expect(!image.hasICCProfile)
    for (width, height) in InMemoryResizeTests.attentionWindows(image) {
      #expect(
        try image.managedAttentionCentre(width: width, height: height)
          == image.attentionCentre(width: width, height: height))
    }
  }
}

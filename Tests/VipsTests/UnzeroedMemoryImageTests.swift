import Foundation
import TestFixtures
import Testing

@testable import Vips

/// A decode computed on the calling thread into a memory image whose pixels were never
/// zeroed (`cvips_unzeroed_memory_image_like`) against libvips's own copy to memory.
@Suite("Unzeroed memory images")
struct UnzeroedMemoryImageTests {
  @Test("the bytes, header and fields of vips_image_copy_memory", arguments: Fixture.photos)
  func sameAsLibvipsCopy(_ fixture: Fixture) throws {
    let pipeline = try VipsImage(file: fixture.path())
    #expect(!pipeline.isInMemory)
    let ours = try pipeline.materializedOnThisThread()
    let theirs = try pipeline.materialized()
    #expect(ours.isInMemory && theirs.isInMemory, "\(fixture)")
    #expect(
      (ours.width, ours.height, ours.bands, ours.format, ours.interpretation)
        == (theirs.width, theirs.height, theirs.bands, theirs.format, theirs.interpretation),
      "\(fixture)")
    #expect(ours.hasICCProfile == theirs.hasICCProfile, "\(fixture)")
    #expect(ours.metadata("exif-ifd0-Orientation") == theirs.metadata("exif-ifd0-Orientation"))
    #expect(try ours.writePixels() == theirs.writePixels(), "\(fixture)")
    // Read where it lies, as the rasterizer reads an entry: the same bytes again.
    if ours.format == .uchar {
      let viewed = try ours.computePixels(onThisThread: true)
      #expect(try viewed.bytes.elementsEqual(theirs.writePixels()), "\(fixture)")
    }
  }

  @Test func anUnzeroedMemoryImageGoesThroughThePathAgainUnchanged() throws {
    // This path's own output is an image in memory like any other to the next step.
    let decoded = try VipsImage(file: Fixture.kept[0].path()).materializedOnThisThread()
    let again = try decoded.materializedOnThisThread()
    #expect(again.isInMemory)
    #expect(try again.writePixels() == decoded.writePixels())
  }
}

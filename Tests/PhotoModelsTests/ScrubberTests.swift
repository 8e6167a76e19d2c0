import ImageTables
import Testing

@testable import PhotoModels

@Suite("Photo scrubber")
@MainActor
struct ScrubberTests {
  @Test func nimbusNumbersFor768By44With100Photos() {
    let layout = ScrubberLayout(width: 768, height: 44, numberOfPhotos: 100)
    #expect((layout.thumbnailWidth, layout.thumbnailHeight) == (18, 13))
    #expect((layout.selectionWidth, layout.selectionHeight) == (36, 27))
    #expect(layout.margin == 9)
    #expect(layout.visibleCount == 39)
    #expect(layout.containerFrame == Frame(x: 13, y: 14, width: 742, height: 15))
    let shown = (0..<39).map(layout.photoIndex(forSlot:))
    #expect(Array(shown.prefix(6)) == [0, 3, 6, 8, 11, 13])
    #expect(Array(shown.suffix(3)) == [93, 95, 98])
    #expect(layout.slotFrame(0) == Frame(x: 1, y: 1, width: 18, height: 13))
    #expect(layout.slotFrame(38) == Frame(x: 1 + 38 * 19, y: 1, width: 18, height: 13))
    #expect(layout.selectionFrame(forPhoto: 0) == Frame(x: 4, y: 8, width: 36, height: 27))
    #expect(layout.selectionFrame(forPhoto: 50) == Frame(x: 370, y: 8, width: 36, height: 27))
    #expect(layout.selectionFrame(forPhoto: 99) == Frame(x: 729, y: 8, width: 36, height: 27))
  }

  @Test func thirtyTwoBitConstants() {
    // 48 / 2.4f (2.4000000954) is 19.9999992: the thumbnail is 19 wide, not 20.
    #expect(ScrubberLayout(width: 768, height: 48, numberOfPhotos: 10).thumbnailWidth == 19)
    #expect(ScrubberLayout(width: 768, height: 48, numberOfPhotos: 10).thumbnailHeight == 14)
  }

  @Test func fewPhotosAreCentredAndAllShown() {
    let layout = ScrubberLayout(width: 320, height: 44, numberOfPhotos: 5)
    #expect(layout.visibleCount == 5)
    // 5 x 18 + 4 + 2 = 96 wide, centred in 320 - 18 = 302 after the 9-point margin.
    #expect(layout.containerFrame == Frame(x: 9 + 103, y: 14, width: 96, height: 15))
    #expect((0..<5).map(layout.photoIndex(forSlot:)) == [0, 1, 2, 3, 4])
    // All shown: no half-thumbnail taken off the usable width.
    #expect(layout.selectionFrame(forPhoto: 4).x == 112 + 4 * 96 / 5 + 9 - 18)
  }

  @Test func touchesMapToPhotos() {
    let layout = ScrubberLayout(width: 768, height: 44, numberOfPhotos: 100)
    #expect(layout.photoIndex(atContainerX: -5) == 0)
    #expect(layout.photoIndex(atContainerX: 0) == 0)
    #expect(layout.photoIndex(atContainerX: 742) == 99)
    #expect(layout.photoIndex(atContainerX: 900) == 99)
    #expect(layout.photoIndex(atContainerX: 371) == 50)  // 371 / 742 x 100
    #expect(layout.photoIndex(atContainerX: 7.5) == 1)
  }

  @Test func zeroPhotosShowNothing() {
    let layout = ScrubberLayout(width: 768, height: 44, numberOfPhotos: 0)
    #expect(layout.visibleCount == 0 && layout.containerFrame == .zero)
    #expect(layout.selectionFrame(forPhoto: 0) == .zero)
    #expect(layout.photoIndex(atContainerX: 10) == 0)
    let source = Thumbnails(count: 0)
    let scrubber = PhotoScrubber(dataSource: source)
    scrubber.bounds = (768, 44)
    #expect(scrubber.slots.isEmpty && scrubber.selectionFrame == .zero)
    scrubber.touch(atContainerX: 5)
    #expect(scrubber.selectedPhotoIndex == 0)
  }

  @Test func touchesNotifyTheDelegateAndCodeDoesNot() {
    let source = Thumbnails(count: 100)
    let scrubber = PhotoScrubber(dataSource: source)
    let delegate = SelectionLog()
    scrubber.delegate = delegate
    scrubber.bounds = (768, 44)
    scrubber.setSelectedPhotoIndex(40)
    #expect(scrubber.selectedPhotoIndex == 40 && delegate.changes == 0)
    scrubber.touch(atContainerX: 371)
    #expect(scrubber.selectedPhotoIndex == 50 && delegate.changes == 1)
    scrubber.touch(atContainerX: 372)  // still photo 50: no change, no call
    #expect(delegate.changes == 1)
    #expect(scrubber.selectionFrame == Frame(x: 370, y: 8, width: 36, height: 27))
  }

  @Test func slotsAskForThumbnailsOnlyWhenTheirPhotoChanges() throws {
    let source = Thumbnails(count: 100, readyUpTo: 50)
    let scrubber = PhotoScrubber(dataSource: source)
    scrubber.bounds = (768, 44)
    #expect(scrubber.slots.count == 39)
    let asked = scrubber.thumbnailRequests
    #expect(asked == 39 + 1)  // each slot once, and the selection
    scrubber.bounds = (768, 44)  // same layout: nothing asked again
    scrubber.reloadData()
    #expect(scrubber.thumbnailRequests == asked)
    // Slot 20 shows photo ceil(20 x 100 / 39) = 52, not ready yet.
    #expect(scrubber.slots[20].photoIndex == 52 && scrubber.slots[20].thumbnail == nil)
    let arrived = try Thumbnails.bitmap(52)
    scrubber.didLoadThumbnail(arrived, at: 52)
    #expect(scrubber.slots[20].thumbnail === arrived)
    #expect(scrubber.thumbnailRequests == asked)
    // Fewer photos: slots now show other photos and ask for those.
    source.count = 10
    scrubber.reloadData()
    #expect(scrubber.slots.count == 10)
    #expect(scrubber.thumbnailRequests > asked)
  }

  @Test func aThumbnailForTheSelectionUpdatesIt() throws {
    let source = Thumbnails(count: 100, readyUpTo: 0)
    let scrubber = PhotoScrubber(dataSource: source)
    scrubber.bounds = (768, 44)
    scrubber.setSelectedPhotoIndex(7)
    #expect(scrubber.selectionThumbnail == nil)
    let arrived = try Thumbnails.bitmap(7)
    scrubber.didLoadThumbnail(arrived, at: 7)
    #expect(scrubber.selectionThumbnail === arrived)
  }
}

@MainActor
final class Thumbnails: PhotoScrubberDataSource {
  var count: Int
  let readyUpTo: Int

  init(count: Int, readyUpTo: Int = .max) {
    self.count = count
    self.readyUpTo = readyUpTo
  }

  static func bitmap(_ index: Int) throws -> Bitmap {
    Bitmap(width: 4, height: 3, style: .bgr32, entityID: "\(index)") { canvas in
      for y in 0..<3 { for x in 0..<4 { canvas.set(x: x, y: y, RGBA(UInt8(index % 256), 0, 0)) } }
    }
  }

  func numberOfPhotos(in scrubber: PhotoScrubber) -> Int { count }

  func thumbnail(at index: Int, in scrubber: PhotoScrubber) -> Bitmap? {
    index < readyUpTo ? try? Self.bitmap(index) : nil
  }
}

@MainActor
final class SelectionLog: PhotoScrubberDelegate {
  var changes = 0
  func photoScrubberDidChangeSelection(_ scrubber: PhotoScrubber) { changes += 1 }
}

import ImageTables
import Testing

@testable import PhotoModels

@Suite("Photo scrubber")
@MainActor
struct ScrubberTests {
  static let widths = [
    0, 1, 10, 19, 20, 41, 100, 160, 320, 321, 480, 641, 767, 768, 1024, 1366, 4096,
  ]
  static let heights = [
    0, 1, 2, 3, 5, 10, 24, 29, 30, 36, 43, 44, 47, 48, 50, 64, 72, 96, 120, 200,
  ]
  static let counts = [0, 1, 2, 3, 5, 10, 37, 38, 39, 40, 99, 100, 101, 1000, 123_457]

  /// A scrubber laid out at `width` by `height` over `count` photos.
  static func scrubber(_ source: Thumbnails, _ width: Int = 768, _ height: Int = 44)
    -> PhotoScrubber
  {
    let scrubber = PhotoScrubber(dataSource: source)
    scrubber.bounds = (width, height)
    scrubber.reloadData()
    return scrubber
  }

  @Test func everyLayoutNumberIsNimbusArithmeticForAGridOfSizesAndCounts() {
    var mismatches: [String] = []
    var checked = 0
    var nimbusNegative = 0
    for width in Self.widths {
      for height in Self.heights {
        for count in Self.counts {
          let nimbus = NimbusScrubberOracle(
            boundsWidth: Double(width), boundsHeight: Double(height), numberOfPhotos: count)
          let layout = ScrubberLayout(width: width, height: height, numberOfPhotos: count)
          let at = "\(width)x\(height), \(count) photos"
          func check(_ ours: Int, _ theirs: Double, _ what: String) {
            checked += 1
            if Double(ours) != theirs {
              mismatches.append("\(at): \(what) \(ours), Nimbus \(theirs)")
            }
          }
          check(layout.thumbnailWidth, nimbus.photoSize.width, "photo width")
          check(layout.thumbnailHeight, nimbus.photoSize.height, "photo height")
          check(layout.selectionWidth, nimbus.selectionSize.width, "selection width")
          check(layout.selectionHeight, nimbus.selectionSize.height, "selection height")
          check(layout.margin, nimbus.horizontalMargins, "margins")
          guard nimbus.numberOfVisiblePhotos >= 0 else {
            // Nimbus loops over a negative count cast to NSUInteger here; ours shows none.
            nimbusNegative += 1
            if layout.visibleCount != 0 || !layout.isContainerHidden {
              mismatches.append("\(at): \(layout.visibleCount) visible where Nimbus's is negative")
            }
            continue
          }
          check(layout.visibleCount, Double(nimbus.numberOfVisiblePhotos), "visible")
          let container = nimbus.containerFrame
          check(layout.containerFrame.x, container.x, "container x")
          check(layout.containerFrame.y, container.y, "container y")
          check(layout.containerFrame.width, container.width, "container width")
          check(layout.containerFrame.height, container.height, "container height")
          guard layout.visibleCount > 0 else { continue }
          for slot in 0..<layout.visibleCount {
            let thumb = nimbus.frameForThumb(at: slot)
            let frame = layout.slotFrame(slot)
            check(frame.x, thumb.x, "slot \(slot) x")
            check(frame.y, thumb.y, "slot \(slot) y")
            check(frame.width, thumb.width, "slot \(slot) width")
            check(frame.height, thumb.height, "slot \(slot) height")
            check(
              layout.photoIndex(forSlot: slot), Double(nimbus.photoIndex(atScrubberIndex: slot)),
              "slot \(slot) photo")
          }
          for index in stride(from: 0, to: count, by: max(1, count / 1000)) {
            let selection = nimbus.frameForSelection(at: index)
            let frame = layout.selectionFrame(forPhoto: index)
            check(frame.x, selection.x, "selection \(index) x")
            check(frame.y, selection.y, "selection \(index) y")
            check(frame.width, selection.width, "selection \(index) width")
            check(frame.height, selection.height, "selection \(index) height")
          }
          let containerWidth = Double(layout.containerFrame.width)
          for x in [
            -3, 0, 0.5, 1, 7.5, containerWidth / 3, containerWidth - 0.5, containerWidth, 1e6,
          ] {
            check(
              layout.photoIndex(atContainerX: x), Double(nimbus.photoIndex(atX: x)), "touch \(x)")
          }
        }
      }
    }
    #expect(mismatches.isEmpty, "\(mismatches.count) of \(checked): \(mismatches.prefix(5))")
    #expect(checked > 1_000_000)
    // Narrow bounds, where Nimbus's count of photos that fit goes negative, are in the grid.
    #expect(nimbusNegative > 0)
  }

  @Test func theScrubberPlacesSlotsAndTheSelectionAsItsLayout() {
    for (width, height, count) in [(768, 44, 100), (320, 48, 5), (1366, 72, 1000), (641, 29, 40)] {
      let source = Thumbnails(count: count)
      let scrubber = Self.scrubber(source, width, height)
      let nimbus = NimbusScrubberOracle(
        boundsWidth: Double(width), boundsHeight: Double(height), numberOfPhotos: count)
      #expect(scrubber.slots.count == nimbus.numberOfVisiblePhotos)
      #expect(
        scrubber.slots.map(\.photoIndex)
          == (0..<nimbus.numberOfVisiblePhotos).map(nimbus.photoIndex(atScrubberIndex:)))
      #expect(scrubber.slots.map(\.frame) == scrubber.slots.indices.map(scrubber.layout.slotFrame))
      scrubber.setSelectedPhotoIndex(count - 1)
      let expected = nimbus.frameForSelection(at: count - 1)
      #expect(
        scrubber.selectionFrame
          == Frame(
            x: Int(expected.x), y: Int(expected.y), width: Int(expected.width),
            height: Int(expected.height)))
    }
  }

  @Test func photoSizeUsesFloatLiteralsSoFortyEightPointsGiveNineteen() {
    // 48 / 2.4f (2.4000000954) is 19.9999992: the thumbnail is 19 wide, not 20.
    let layout = ScrubberLayout(width: 768, height: 48, numberOfPhotos: 10)
    #expect((layout.thumbnailWidth, layout.thumbnailHeight) == (19, 14))
    // 48 / 1.2f (1.2000000477) is 39.99999841: the selection is 39 wide, not 40.
    #expect((layout.selectionWidth, layout.selectionHeight) == (39, 29))
  }

  @Test func frameForSelectionAtIndexTakesAFloatHalfPhotoWidth() {
    // 768x48, 100 photos: a 19-point photo, so Nimbus trims 9.5 points, not 9.
    let layout = ScrubberLayout(width: 768, height: 48, numberOfPhotos: 100)
    #expect(
      layout.visibleCount == 37
        && layout.containerFrame == Frame(x: 13, y: 16, width: 741, height: 16))
    #expect(layout.selectionFrame(forPhoto: 19) == Frame(x: 141, y: 9, width: 39, height: 29))
    // The integer half (9) puts 27 of the 100 selections one point to the right.
    let integerHalf = (0..<100).filter { index in
      let usable = Double(layout.containerFrame.width - layout.thumbnailWidth / 2)
      let offset = (Double(index) * usable / 100).rounded(.down)
      let x = Double(layout.containerFrame.x) + offset + 9.5 - 19.5
      return Int(x.rounded(.down)) != layout.selectionFrame(forPhoto: index).x
    }
    #expect(integerHalf.count == 27 && integerHalf.contains(19))
  }

  @Test func nimbusNumbersFor768By44With100Photos() {
    let layout = ScrubberLayout(width: 768, height: 44, numberOfPhotos: 100)
    #expect((layout.thumbnailWidth, layout.thumbnailHeight) == (18, 13))
    #expect((layout.selectionWidth, layout.selectionHeight) == (36, 27))
    #expect(layout.margin == 9 && layout.visibleCount == 39)
    #expect(layout.containerFrame == Frame(x: 13, y: 14, width: 742, height: 15))
    let shown = (0..<39).map(layout.photoIndex(forSlot:))
    #expect(Array(shown.prefix(6)) == [0, 3, 6, 8, 11, 13])
    #expect(Array(shown.suffix(3)) == [93, 95, 98])
    #expect(layout.slotFrame(38) == Frame(x: 1 + 38 * 19, y: 1, width: 18, height: 13))
    #expect(layout.selectionFrame(forPhoto: 0) == Frame(x: 4, y: 8, width: 36, height: 27))
    #expect(layout.selectionFrame(forPhoto: 50) == Frame(x: 370, y: 8, width: 36, height: 27))
    #expect(layout.selectionFrame(forPhoto: 99) == Frame(x: 729, y: 8, width: 36, height: 27))
  }

  @Test func selectedPhotoIndexStartsAsNoneSoAFirstTouchOnPhotoZeroNotifies() {
    let source = Thumbnails(count: 100)
    let scrubber = Self.scrubber(source)
    let delegate = SelectionLog()
    scrubber.delegate = delegate
    #expect(scrubber.selectedPhotoIndex == nil && scrubber.isSelectionHidden)
    #expect(scrubber.selectionFrame == nil && scrubber.selectionThumbnail == nil)
    scrubber.touch(atContainerX: 2)
    #expect(scrubber.selectedPhotoIndex == 0 && delegate.changes == 1)
    #expect(scrubber.selectionFrame == Frame(x: 4, y: 8, width: 36, height: 27))
    #expect(scrubber.selectionThumbnail?.entityID == "0")
    #expect(scrubber.selectionAnimation == nil)  // touches move it without animation
  }

  @Test func photoScrubberViewDidChangeSelectionOnlyForTouches() {
    let source = Thumbnails(count: 100)
    let scrubber = Self.scrubber(source)
    let delegate = SelectionLog()
    scrubber.delegate = delegate
    scrubber.setSelectedPhotoIndex(40)
    #expect(scrubber.selectedPhotoIndex == 40 && delegate.changes == 0)
    scrubber.touch(atContainerX: 371)  // 371 / 742 x 100
    #expect(scrubber.selectedPhotoIndex == 50 && delegate.changes == 1)
    scrubber.touch(atContainerX: 372)  // still photo 50: no change, no call
    #expect(delegate.changes == 1)
    scrubber.touch(atContainerX: -20)
    #expect(scrubber.selectedPhotoIndex == 0 && delegate.changes == 2)
    scrubber.touch(atContainerX: 5000)
    #expect(scrubber.selectedPhotoIndex == 99 && delegate.changes == 3)
  }

  @Test func setSelectedPhotoIndexToTheSameIndexAsksNothing() {
    let source = Thumbnails(count: 100)
    let scrubber = Self.scrubber(source)
    scrubber.setSelectedPhotoIndex(7)
    let asked = scrubber.thumbnailRequests
    #expect(scrubber.setSelectedPhotoIndex(7, animated: true) == nil)
    #expect(scrubber.thumbnailRequests == asked)
    scrubber.setSelectedPhotoIndex(8)
    #expect(scrubber.thumbnailRequests == asked + 1)
    #expect(scrubber.selectionThumbnail?.entityID == "8")
  }

  @Test func anIndexOutsideThePhotosSelectsNone() {
    let source = Thumbnails(count: 10)
    let scrubber = Self.scrubber(source)
    scrubber.setSelectedPhotoIndex(4)
    let asked = scrubber.thumbnailRequests
    scrubber.setSelectedPhotoIndex(10)
    #expect(scrubber.selectedPhotoIndex == nil && scrubber.selectionFrame == nil)
    #expect(scrubber.selectionThumbnail == nil && scrubber.thumbnailRequests == asked)
    scrubber.setSelectedPhotoIndex(4)
    scrubber.setSelectedPhotoIndex(-1)
    #expect(scrubber.selectedPhotoIndex == nil)
    // A reload to fewer photos than the selection reaches: none.
    scrubber.setSelectedPhotoIndex(9)
    source.count = 5
    scrubber.reloadData()
    #expect(scrubber.selectedPhotoIndex == nil && scrubber.isSelectionHidden)
  }

  @Test func setSelectedPhotoIndexAnimatedMovesForPointTwoSecondsEasingOut() throws {
    let clock = ManualClock(now: 100)
    let source = Thumbnails(count: 100)
    let scrubber = PhotoScrubber(dataSource: source, clock: { clock.now })
    scrubber.bounds = (768, 44)
    scrubber.reloadData()
    // From no selection: no animation (Nimbus animates only from a valid selection).
    #expect(scrubber.setSelectedPhotoIndex(0, animated: true) == nil)
    #expect(scrubber.selectionAnimation == nil)
    let layout = scrubber.layout
    let animation = try #require(scrubber.setSelectedPhotoIndex(50, animated: true))
    #expect(scrubber.selectionAnimation == animation)
    #expect(animation.from == Rect(layout.selectionFrame(forPhoto: 0)))
    #expect(animation.to == Rect(layout.selectionFrame(forPhoto: 50)))
    #expect(animation.duration == 0.2 && animation.startTime == 100)
    #expect(scrubber.selectionFrame == layout.selectionFrame(forPhoto: 50))  // the model's frame
    // Ease-out: 68.46% of the way at half time (cubic Bézier (0, 0, 0.58, 1)).
    #expect(abs(animation.progress(atElapsed: 0.1) - 0.684_643_187_427_460_7) < 1e-9)
    #expect(abs(animation.frame(atElapsed: 0.1).x - (4 + 366 * 0.684_643_187_427_460_7)) < 1e-6)
    #expect(animation.frame(atElapsed: 0) == animation.from)
    #expect(animation.frame(atElapsed: 0.2) == animation.to)
    #expect(animation.frame(atElapsed: 5) == animation.to)
    // Begins from the current state: mid-way, a new selection starts where it is drawn.
    clock.now += 0.05
    let drawn = try #require(scrubber.presentedSelectionFrame)
    #expect(abs(drawn.x - (4 + 366 * 0.378_138_130_825_109_8)) < 1e-6)  // a quarter in
    let second = try #require(scrubber.setSelectedPhotoIndex(10, animated: true))
    #expect(second.from == drawn && second.startTime == 100.05)
    #expect(second.to == Rect(layout.selectionFrame(forPhoto: 10)))
    // Without animation, the selection jumps and the animation is gone.
    scrubber.setSelectedPhotoIndex(20, animated: false)
    #expect(scrubber.selectionAnimation == nil)
    #expect(scrubber.presentedSelectionFrame == Rect(layout.selectionFrame(forPhoto: 20)))
    // A new layout places the selection without animation, as layoutSubviews does.
    scrubber.setSelectedPhotoIndex(30, animated: true)
    scrubber.bounds = (640, 44)
    #expect(scrubber.selectionAnimation == nil)
    #expect(scrubber.selectionFrame == scrubber.layout.selectionFrame(forPhoto: 30))
  }

  @Test func theEaseOutCurveIsCoreAnimationsAtEveryQuarter() {
    let animation = SelectionAnimation(
      from: Rect(x: 0, y: 0, width: 1, height: 1), to: .init(x: 1, y: 1, width: 1, height: 1))
    // From the Bézier solved in exact rationals (Python fractions), outside this code.
    let expected: [(Double, Double)] = [
      (0.02, 0.160_572_154_237_533_46), (0.05, 0.378_138_130_825_109_8),
      (0.1, 0.684_643_187_427_460_7), (0.15, 0.906_535_349_281_175_2),
      (0.18, 0.982_973_390_348_437),
    ]
    for (elapsed, progress) in expected {
      #expect(abs(animation.progress(atElapsed: elapsed) - progress) < 1e-9, "at \(elapsed) s")
    }
    let samples = stride(from: -0.05, through: 0.25, by: 0.001).map(animation.progress(atElapsed:))
    #expect(zip(samples, samples.dropFirst()).allSatisfy { $0 <= $1 })
    #expect(samples.first == 0 && samples.last == 1)
  }

  @Test func reloadDataDropsEveryThumbnailAndAsksAgain() throws {
    let source = Thumbnails(count: 100, readyUpTo: 50)
    let scrubber = Self.scrubber(source)
    #expect(scrubber.slots.count == 39 && scrubber.thumbnailRequests == 39)
    // Slot 20 shows photo ceil(20 x 100 / 39) = 52, not ready yet; it arrives.
    #expect(scrubber.slots[20].photoIndex == 52 && scrubber.slots[20].thumbnail == nil)
    let arrived = try Thumbnails.bitmap(52)
    scrubber.didLoadThumbnail(arrived, at: 52)
    #expect(scrubber.slots[20].thumbnail === arrived)
    // The same photos: every slot asks again and shows what the data source says now.
    scrubber.reloadData()
    #expect(scrubber.thumbnailRequests == 78)
    #expect(scrubber.slots[20].thumbnail == nil)
    #expect(scrubber.slots[3].thumbnail?.entityID == "8")
  }

  @Test func numberOfPhotosIsReadByReloadDataNotByLayout() {
    let source = Thumbnails(count: 100)
    let scrubber = Self.scrubber(source)
    #expect(source.countReads == 1)
    source.count = 10
    scrubber.bounds = (1024, 44)
    scrubber.bounds = (640, 48)
    #expect(source.countReads == 1 && scrubber.numberOfPhotos == 100)
    // A new layout asks only slots whose photo changed.
    let asked = scrubber.thumbnailRequests
    scrubber.bounds = (640, 48)
    #expect(scrubber.thumbnailRequests == asked)
    scrubber.reloadData()
    #expect(source.countReads == 2 && scrubber.slots.count == 10)
  }

  @Test func aLayoutAsksOnlySlotsWhosePhotoChanged() {
    let source = Thumbnails(count: 100)
    let scrubber = Self.scrubber(source, 768, 44)
    let before = scrubber.slots.map(\.photoIndex)
    let asked = scrubber.thumbnailRequests
    scrubber.bounds = (700, 44)
    let after = scrubber.slots.map(\.photoIndex)
    let changed = after.indices.filter { $0 >= before.count || before[$0] != after[$0] }
    #expect(scrubber.thumbnailRequests == asked + changed.count)
    #expect(!changed.isEmpty && changed.count < after.count)
  }

  @Test func didLoadThumbnailUpdatesTheSlotAndTheSelection() throws {
    let source = Thumbnails(count: 100, readyUpTo: 0)
    let scrubber = Self.scrubber(source)
    scrubber.setSelectedPhotoIndex(8)  // slot 3 shows photo 8
    #expect(scrubber.selectionThumbnail == nil && scrubber.slots[3].photoIndex == 8)
    let arrived = try Thumbnails.bitmap(8)
    scrubber.didLoadThumbnail(arrived, at: 8)
    #expect(scrubber.selectionThumbnail === arrived && scrubber.slots[3].thumbnail === arrived)
    let other = try Thumbnails.bitmap(9)
    scrubber.didLoadThumbnail(other, at: 9)  // not shown, not selected
    #expect(scrubber.selectionThumbnail === arrived)
    #expect(scrubber.slots.allSatisfy { $0.thumbnail == nil || $0.thumbnail === arrived })
  }

  @Test func zeroPhotosShowNothing() {
    let layout = ScrubberLayout(width: 768, height: 44, numberOfPhotos: 0)
    #expect(layout.visibleCount == 0 && layout.isContainerHidden)
    #expect(layout.photoIndex(atContainerX: 10) == 0)
    let source = Thumbnails(count: 0)
    let scrubber = Self.scrubber(source)
    let delegate = SelectionLog()
    scrubber.delegate = delegate
    #expect(scrubber.slots.isEmpty && scrubber.selectionFrame == nil)
    scrubber.touch(atContainerX: 5)
    #expect(scrubber.selectedPhotoIndex == nil && delegate.changes == 0)
    #expect(scrubber.thumbnailRequests == 0)
  }
}

@MainActor
final class Thumbnails: PhotoScrubberDataSource {
  var count: Int
  let readyUpTo: Int
  private(set) var countReads = 0

  init(count: Int, readyUpTo: Int = .max) {
    self.count = count
    self.readyUpTo = readyUpTo
  }

  static func bitmap(_ index: Int) throws -> Bitmap {
    Bitmap(width: 4, height: 3, style: .bgr32, entityID: "\(index)") { canvas in
      for y in 0..<3 { for x in 0..<4 { canvas.set(x: x, y: y, RGBA(UInt8(index % 256), 0, 0)) } }
    }
  }

  func numberOfPhotos(in scrubber: PhotoScrubber) -> Int {
    countReads += 1
    return count
  }

  func thumbnail(at index: Int, in scrubber: PhotoScrubber) -> Bitmap? {
    index < readyUpTo ? try? Self.bitmap(index) : nil
  }
}

/// Seconds that move only when a test moves them.
@MainActor
final class ManualClock {
  var now: Double
  init(now: Double) { self.now = now }
}

@MainActor
final class SelectionLog: PhotoScrubberDelegate {
  var changes = 0
  func photoScrubberDidChangeSelection(_ scrubber: PhotoScrubber) { changes += 1 }
}

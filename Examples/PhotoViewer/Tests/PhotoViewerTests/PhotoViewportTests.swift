import Testing

@testable import PhotoViewer

@Suite struct PhotoViewportTests {
  typealias Placement = PhotoViewport.Placement

  @Test func fittedThePhotoTakesTheLargestSizeThatFitsCentred() {
    let viewport = PhotoViewport()
    // 720 x 540 in 1000 x 600: the height decides (600 / 540), centred across.
    let wide = viewport.placement(
      photoWidth: 720, photoHeight: 540, width: 1000, height: 600, pixelsPerPoint: 1)
    #expect(wide.scale == 600.0 / 540)
    #expect(wide.width == 800)
    #expect(wide.height == 600)
    #expect(wide.x == 100)
    #expect(wide.y == 0)
    // A small photo is scaled up to the window too.
    let small = viewport.placement(
      photoWidth: 100, photoHeight: 50, width: 400, height: 400, pixelsPerPoint: 2)
    #expect(small.scale == 4)
    #expect(small.y == 100)
  }

  @Test func oneToOneIsAPhotoPixelOnADevicePixel() {
    var viewport = PhotoViewport()
    viewport.zoom(
      to: 1, photoWidth: 720, photoHeight: 540, width: 1000, height: 600, pixelsPerPoint: 2)
    let placed = viewport.placement(
      photoWidth: 720, photoHeight: 540, width: 1000, height: 600, pixelsPerPoint: 2)
    #expect(placed.scale == 0.5)
    #expect(placed.width == 360)
    // Centred, the corner on a whole device pixel: (1000 - 360) / 2, (600 - 270) / 2.
    #expect(placed.x == 320)
    #expect(placed.y == 165)
  }

  @Test func zoomStepsThroughTheLevels() {
    #expect(PhotoViewport.step(from: 1, up: true) == 1.5)
    #expect(PhotoViewport.step(from: 1.5, up: true) == 2)
    #expect(PhotoViewport.step(from: 1, up: false) == 2.0 / 3)
    #expect(PhotoViewport.step(from: 2.0 / 3, up: false) == 0.5)
    // From a fit between levels, to the next one either way.
    #expect(PhotoViewport.step(from: 0.9, up: true) == 1)
    #expect(PhotoViewport.step(from: 0.9, up: false) == 2.0 / 3)
    #expect(PhotoViewport.step(from: 16, up: true) == 16)
    #expect(PhotoViewport.step(from: 1.0 / 16, up: false) == 1.0 / 16)
  }

  @Test func aZoomAroundThePointerKeepsThePointUnderIt() {
    var viewport = PhotoViewport()
    // Fitted: 720 x 540 in 720 x 540, scale 1; the pointer on photo pixel (600, 100).
    viewport.zoom(
      to: 2, aroundX: 600, y: 100, photoWidth: 720, photoHeight: 540, width: 720, height: 540,
      pixelsPerPoint: 1)
    let placed = viewport.placement(
      photoWidth: 720, photoHeight: 540, width: 720, height: 540, pixelsPerPoint: 1)
    #expect(placed.scale == 2)
    #expect(placed.x + 600 * 2 == 600)
    #expect(placed.y + 100 * 2 == 100)
  }

  @Test func aZoomedPhotoDoesNotLeaveItsEdges() {
    var viewport = PhotoViewport()
    viewport.zoom(
      to: 2, aroundX: 0, y: 0, photoWidth: 100, photoHeight: 100, width: 100, height: 100,
      pixelsPerPoint: 1)
    // Around its corner, the corner stays at the view's.
    let placed = viewport.placement(
      photoWidth: 100, photoHeight: 100, width: 100, height: 100, pixelsPerPoint: 1)
    #expect(placed.x == 0)
    #expect(placed.y == 0)
    // A pan far past the other corner stops there.
    viewport.pan(
      from: (50, 50), dx: -10_000, dy: -10_000, photoWidth: 100, photoHeight: 100, width: 100,
      height: 100, pixelsPerPoint: 1)
    let panned = viewport.placement(
      photoWidth: 100, photoHeight: 100, width: 100, height: 100, pixelsPerPoint: 1)
    #expect(panned.x == -100)
    #expect(panned.y == -100)
    viewport.fit()
    #expect(viewport.isFitted)
  }

  @Test func aDragMovesTheZoomedPhotoWithThePointer() {
    var viewport = PhotoViewport()
    viewport.zoom(
      to: 4, photoWidth: 100, photoHeight: 100, width: 100, height: 100, pixelsPerPoint: 1)
    let start = viewport.panStart(
      photoWidth: 100, photoHeight: 100, width: 100, height: 100, pixelsPerPoint: 1)
    #expect(start == (50, 50))
    let before = viewport.placement(
      photoWidth: 100, photoHeight: 100, width: 100, height: 100, pixelsPerPoint: 1)
    viewport.pan(
      from: start, dx: 40, dy: -20, photoWidth: 100, photoHeight: 100, width: 100, height: 100,
      pixelsPerPoint: 1)
    let after = viewport.placement(
      photoWidth: 100, photoHeight: 100, width: 100, height: 100, pixelsPerPoint: 1)
    #expect(after.x - before.x == 40)
    #expect(after.y - before.y == -20)
  }

  @Test func aClickPagesByTheHalfOfThePhotoItIsOn() {
    let placed = Placement(x: 100, y: 0, scale: 1, width: 400, height: 300)
    func side(_ x: Double, _ y: Double) -> ViewerModel.Move? {
      PhotoViewport.side(ofX: x, y: y, placement: placed, width: 600, height: 300)
    }
    #expect(side(120, 150) == .previous)
    #expect(side(299, 150) == .previous)
    #expect(side(300, 150) == .next)
    #expect(side(499, 10) == .next)
    // On the black beside the photo: nothing.
    #expect(side(50, 150) == nil)
    #expect(side(550, 150) == nil)
    // Zoomed past the view, the halves are those of what the view shows of it.
    let zoomed = Placement(x: -500, y: -500, scale: 4, width: 1600, height: 1600)
    #expect(
      PhotoViewport.side(ofX: 290, y: 10, placement: zoomed, width: 600, height: 300) == .previous)
    #expect(
      PhotoViewport.side(ofX: 310, y: 10, placement: zoomed, width: 600, height: 300) == .next)
  }
}

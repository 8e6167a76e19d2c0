import Foundation

/// Nimbus's `NIPhotoScrubberView` layout (src/photos/src/NIPhotoScrubberView.m),
/// transcribed method by method as the test's oracle. `CGFloat` is `Double` (64-bit),
/// `NSInteger` is `Int`, `2.4f`, `1.2f`, `0.75f` and `0.5f` are `Float` literals, and
/// `NICGFloatFloor`/`NICGFloatCeil` are `floor`/`ceil`.
struct NimbusScrubberOracle {
  // self.bounds.size
  let boundsWidth: Double
  let boundsHeight: Double
  // _numberOfPhotos (cached in reloadData)
  let numberOfPhotos: Int
  // _containerView.layer.borderWidth
  let borderWidth: Double = 1

  // - (CGSize)photoSize
  var photoSize: (width: Double, height: Double) {
    let photoWidth = floor(boundsHeight / Double(Float(2.4)))
    let photoHeight = floor(photoWidth * Double(Float(0.75)))
    return (photoWidth, photoHeight)
  }

  // - (CGSize)selectionSize
  var selectionSize: (width: Double, height: Double) {
    let selectionWidth = floor(boundsHeight / Double(Float(1.2)))
    let selectionHeight = floor(selectionWidth * Double(Float(0.75)))
    return (selectionWidth, selectionHeight)
  }

  // - (CGFloat)horizontalMargins
  var horizontalMargins: Double { floor(photoSize.width / 2) }

  // - (CGFloat)spaceBetweenPhotos
  var spaceBetweenPhotos: Double { 1 }

  // - (CGFloat)maxContentWidth
  var maxContentWidth: Double { boundsWidth - horizontalMargins * 2 }

  // - (NSInteger)numberOfVisiblePhotos
  var numberOfVisiblePhotos: Int {
    let maxContentWidth = self.maxContentWidth - borderWidth * 2
    let numberOfPhotosThatFit = Int(
      floor((maxContentWidth + spaceBetweenPhotos) / (photoSize.width + spaceBetweenPhotos)))
    return min(numberOfPhotos, numberOfPhotosThatFit)
  }

  // - (void)layoutSubviews: _containerView.frame
  var containerFrame: (x: Double, y: Double, width: Double, height: Double) {
    let numberOfVisiblePhotos = self.numberOfVisiblePhotos
    let containerWidth =
      (Double(numberOfVisiblePhotos) * photoSize.width)
      + (Double(max(0, numberOfVisiblePhotos - 1)) * spaceBetweenPhotos) + borderWidth * 2
    let containerMargins = max(0, floor((maxContentWidth - containerWidth) / 2))
    let containerHeight = photoSize.height + borderWidth * 2
    let containerLeftMargin = horizontalMargins + containerMargins
    let containerTopMargin = floor((boundsHeight - containerHeight) / 2)
    return (containerLeftMargin, containerTopMargin, containerWidth, containerHeight)
  }

  // - (CGRect)frameForSelectionAtIndex:
  func frameForSelection(at photoIndex: Int) -> (
    x: Double, y: Double, width: Double, height: Double
  ) {
    let container = containerFrame
    var containerWidth = container.width
    if numberOfVisiblePhotos < numberOfPhotos {
      containerWidth -= photoSize.width / 2
    }
    let relativeOffset = floor(
      (Double(photoIndex) * containerWidth) / Double(max(1, numberOfPhotos)))
    let centerY = container.y + container.height / 2
    return (
      floor(container.x + relativeOffset + photoSize.width / 2 - selectionSize.width / 2),
      floor(centerY - selectionSize.height / 2), selectionSize.width, selectionSize.height
    )
  }

  // - (CGRect)frameForThumbAtIndex:
  func frameForThumb(at thumbIndex: Int) -> (x: Double, y: Double, width: Double, height: Double) {
    (
      borderWidth + (photoSize.width + spaceBetweenPhotos) * Double(thumbIndex), borderWidth,
      photoSize.width, photoSize.height
    )
  }

  // - (NSInteger)photoIndexAtScrubberIndex:
  func photoIndex(atScrubberIndex scrubberIndex: Int) -> Int {
    Int(
      ceil(Double(scrubberIndex * numberOfPhotos) / Double(numberOfVisiblePhotos))
        + Double(Float(0.5)))
  }

  // - (NSInteger)photoIndexAtPoint: (point in the container's coordinates)
  func photoIndex(atX x: Double) -> Int {
    let width = containerFrame.width
    if x <= 0 { return 0 }
    if x >= width { return numberOfPhotos - 1 }
    return Int(floor((x / width) * Double(numberOfPhotos)) + Double(Float(0.5)))
  }
}

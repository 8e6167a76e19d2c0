/// The geometry of a photo scrubber (Nimbus's `NIPhotoScrubberView`), computed exactly
/// as the original computes it: its constants 2.4, 1.2 and 0.75 are 32-bit floats, and
/// the arithmetic is in `CGFloat` (64-bit). So 48 / 2.4f is 19.9999992 and the thumbnail
/// is 19 wide, not 20.
///
/// For bounds `B` by `H` and `N` photos: a thumbnail is floor(H / 2.4) wide and 0.75 of
/// that high; the selection floor(H / 1.2) wide and 0.75 of that high; as many
/// thumbnails as fit (one pixel apart, inside a one-pixel frame) are shown, centred,
/// each standing for photo ceil(k x N / V).
///
/// ```swift
/// let layout = ScrubberLayout(width: 768, height: 44, numberOfPhotos: 100)
/// layout.visibleCount     // 39
/// layout.containerFrame   // (13, 14, 742, 15)
/// ```
public struct ScrubberLayout: Sendable, Equatable {
  public let width: Int
  public let height: Int
  public let numberOfPhotos: Int
  public let thumbnailWidth: Int
  public let thumbnailHeight: Int
  public let selectionWidth: Int
  public let selectionHeight: Int
  public let margin: Int
  /// Thumbnails shown: min(N, as many as fit).
  public let visibleCount: Int
  /// The strip that holds the thumbnails, in the scrubber's bounds.
  public let containerFrame: Frame

  /// The original's constants: 32-bit floats, widened when used.
  static let thumbRatio = Double(Float(2.4))
  static let selectionRatio = Double(Float(1.2))
  static let aspect = Double(Float(0.75))

  public init(width: Int, height: Int, numberOfPhotos: Int) {
    self.width = width
    self.height = height
    self.numberOfPhotos = max(0, numberOfPhotos)
    thumbnailWidth = Int((Double(height) / Self.thumbRatio).rounded(.down))
    thumbnailHeight = Int((Double(thumbnailWidth) * Self.aspect).rounded(.down))
    selectionWidth = Int((Double(height) / Self.selectionRatio).rounded(.down))
    selectionHeight = Int((Double(selectionWidth) * Self.aspect).rounded(.down))
    margin = thumbnailWidth / 2
    let content = width - 2 * margin
    let fits = thumbnailWidth > 0 ? max(0, (content - 2 + 1) / (thumbnailWidth + 1)) : 0
    visibleCount = min(self.numberOfPhotos, fits)
    guard visibleCount > 0 else {
      containerFrame = .zero
      return
    }
    let containerWidth = visibleCount * thumbnailWidth + max(0, visibleCount - 1) + 2
    let containerHeight = thumbnailHeight + 2
    containerFrame = Frame(
      x: margin + max(0, Int((Double(content - containerWidth) / 2).rounded(.down))),
      y: Int((Double(height - containerHeight) / 2).rounded(.down)),
      width: containerWidth, height: containerHeight)
  }

  /// Slot `k`'s frame inside the container.
  public func slotFrame(_ slot: Int) -> Frame {
    Frame(x: 1 + slot * (thumbnailWidth + 1), y: 1, width: thumbnailWidth, height: thumbnailHeight)
  }

  /// The photo slot `k` shows: ceil(k x N / V).
  public func photoIndex(forSlot slot: Int) -> Int {
    guard visibleCount > 0 else { return 0 }
    return Int((Double(slot) * Double(numberOfPhotos) / Double(visibleCount)).rounded(.up))
  }

  /// Where the selection stands when photo `index` is selected, in the scrubber's bounds.
  public func selectionFrame(forPhoto index: Int) -> Frame {
    guard visibleCount > 0 else { return .zero }
    let container = containerFrame
    let usable = Double(container.width - (visibleCount < numberOfPhotos ? thumbnailWidth / 2 : 0))
    let offset = (Double(index) * usable / Double(max(1, numberOfPhotos))).rounded(.down)
    let x = Double(container.x) + offset + Double(thumbnailWidth) / 2 - Double(selectionWidth) / 2
    let middle = Double(container.y) + Double(container.height) / 2
    return Frame(
      x: Int(x.rounded(.down)), y: Int((middle - Double(selectionHeight) / 2).rounded(.down)),
      width: selectionWidth, height: selectionHeight)
  }

  /// The photo a touch at `x` (in the container) points at.
  public func photoIndex(atContainerX x: Double) -> Int {
    guard numberOfPhotos > 0 else { return 0 }
    if x <= 0 { return 0 }
    if x >= Double(containerFrame.width) { return numberOfPhotos - 1 }
    return min(
      numberOfPhotos - 1,
      Int((x / Double(containerFrame.width) * Double(numberOfPhotos)).rounded(.down)))
  }
}

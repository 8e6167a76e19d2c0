/// The geometry of a photo scrubber, computed as Nimbus's `NIPhotoScrubberView` computes
/// it on 64-bit: `CGFloat` is a `Double`, and the constants 2.4, 1.2 and 0.75 are
/// `float` literals widened to it. So 48 / 2.4f is 19.9999992 and a thumbnail in a
/// 48-point scrubber is 19 wide, not 20; and where Nimbus halves a width without
/// flooring (the selection's offset), the half is fractional here too.
///
/// For bounds `W` by `H` and `N` photos (all Nimbus's names):
/// - photo size: `floor(H / 2.4f)` wide, `floor(width x 0.75f)` high; selection size:
///   `floor(H / 1.2f)` wide, `floor(width x 0.75f)` high;
/// - horizontal margins `floor(photoWidth / 2)`, max content width `W - 2 x margins`;
/// - visible photos `min(N, floor((maxContentWidth - 2 + 1) / (photoWidth + 1)))`;
/// - the container (one-point border, thumbnails one point apart) centred in the content
///   width, and centred vertically, floored;
/// - slot `k` shows photo `ceil(k x N / visible)`;
/// - the selection for photo `i` stands `floor(i x usable / max(1, N))` into the
///   container, where usable is the container's width less `photoWidth / 2` (a float
///   half) when not every photo is shown.
///
/// Every frame Nimbus computes is floored, so frames are whole points (``Frame``).
///
/// One difference: where Nimbus's count of photos that fit is negative (bounds
/// narrower than twice its margins plus one point), it loops over that count cast to
/// an unsigned integer; here no photo is visible and the container is hidden.
///
/// ```swift
/// let layout = ScrubberLayout(width: 768, height: 44, numberOfPhotos: 100)
/// layout.visibleCount     // 39
/// layout.containerFrame   // (13, 14, 742, 15)
/// ```
public struct ScrubberLayout: Sendable, Equatable {
  /// The largest size taken, in points a side; bigger (or negative) sizes are taken as
  /// this (or 0), so every number stays exact in a `Double`.
  public static let maximumSide = 1 << 24

  public let width: Int
  public let height: Int
  public let numberOfPhotos: Int
  public let thumbnailWidth: Int
  public let thumbnailHeight: Int
  public let selectionWidth: Int
  public let selectionHeight: Int
  /// Nimbus's horizontal margins, on each side.
  public let margin: Int
  /// Thumbnails shown: min(N, as many as fit), never negative.
  public let visibleCount: Int
  /// The strip that holds the thumbnails, in the scrubber's bounds (Nimbus lays it out
  /// even when it hides it; see ``isContainerHidden``).
  public let containerFrame: Frame

  /// The original's constants: 32-bit floats, widened when used.
  static let thumbRatio = Double(Float(2.4))
  static let selectionRatio = Double(Float(1.2))
  static let aspect = Double(Float(0.75))
  /// The container's border width and the space between thumbnails.
  static let border = 1.0
  static let spaceBetweenPhotos = 1.0

  public init(width: Int, height: Int, numberOfPhotos: Int) {
    let width = min(max(0, width), Self.maximumSide)
    let height = min(max(0, height), Self.maximumSide)
    self.width = width
    self.height = height
    self.numberOfPhotos = max(0, numberOfPhotos)
    let boundsWidth = Double(width)
    let boundsHeight = Double(height)
    let photoWidth = (boundsHeight / Self.thumbRatio).rounded(.down)
    let photoHeight = (photoWidth * Self.aspect).rounded(.down)
    let selectionWidth = (boundsHeight / Self.selectionRatio).rounded(.down)
    let selectionHeight = (selectionWidth * Self.aspect).rounded(.down)
    let horizontalMargins = (photoWidth / 2).rounded(.down)
    let maxContentWidth = boundsWidth - horizontalMargins * 2
    let fit = Int(
      ((maxContentWidth - Self.border * 2 + Self.spaceBetweenPhotos)
        / (photoWidth + Self.spaceBetweenPhotos)).rounded(.down))
    let visible = max(0, min(self.numberOfPhotos, fit))
    let containerWidth =
      Double(visible) * photoWidth + Double(max(0, visible - 1)) * Self.spaceBetweenPhotos
      + Self.border * 2
    let containerMargins = max(0, ((maxContentWidth - containerWidth) / 2).rounded(.down))
    let containerHeight = photoHeight + Self.border * 2
    let containerTop = ((boundsHeight - containerHeight) / 2).rounded(.down)
    thumbnailWidth = Int(photoWidth)
    thumbnailHeight = Int(photoHeight)
    self.selectionWidth = Int(selectionWidth)
    self.selectionHeight = Int(selectionHeight)
    margin = Int(horizontalMargins)
    visibleCount = visible
    containerFrame = Frame(
      x: Int(horizontalMargins + containerMargins), y: Int(containerTop),
      width: Int(containerWidth), height: Int(containerHeight))
  }

  /// Nimbus hides the container (and so the thumbnails and the selection) when no
  /// photo is visible.
  public var isContainerHidden: Bool { visibleCount == 0 }

  /// Slot `k`'s frame inside the container (Nimbus's `frameForThumbAtIndex:`).
  public func slotFrame(_ slot: Int) -> Frame {
    Frame(x: 1 + slot * (thumbnailWidth + 1), y: 1, width: thumbnailWidth, height: thumbnailHeight)
  }

  /// The photo slot `k` shows: `ceil(k x N / visible)` (Nimbus's
  /// `photoIndexAtScrubberIndex:`); 0 when nothing is visible.
  public func photoIndex(forSlot slot: Int) -> Int {
    guard visibleCount > 0 else { return 0 }
    return Int((Double(slot) * Double(numberOfPhotos) / Double(visibleCount)).rounded(.up))
  }

  /// Where the selection stands when photo `index` is selected, in the scrubber's bounds
  /// (Nimbus's `frameForSelectionAtIndex:`, float half widths and all).
  public func selectionFrame(forPhoto index: Int) -> Frame {
    let photoWidth = Double(thumbnailWidth)
    let selectionWidth = Double(self.selectionWidth)
    let selectionHeight = Double(self.selectionHeight)
    var containerWidth = Double(containerFrame.width)
    if visibleCount < numberOfPhotos {
      containerWidth -= photoWidth / 2
    }
    let relativeOffset =
      (Double(index) * containerWidth / Double(max(1, numberOfPhotos))).rounded(.down)
    let x = (Double(containerFrame.x) + relativeOffset + photoWidth / 2 - selectionWidth / 2)
      .rounded(.down)
    let centreY = Double(containerFrame.y) + Double(containerFrame.height) / 2
    let y = (centreY - selectionHeight / 2).rounded(.down)
    return Frame(x: Int(x), y: Int(y), width: self.selectionWidth, height: self.selectionHeight)
  }

  /// The photo a touch at `x` in the container's coordinates points at (Nimbus's
  /// `photoIndexAtPoint:`): 0 left of the container, the last photo right of it, else
  /// `floor(x / containerWidth x N)`. 0 when there are no photos.
  public func photoIndex(atContainerX x: Double) -> Int {
    guard numberOfPhotos > 0 else { return 0 }
    let containerWidth = Double(containerFrame.width)
    if x <= 0 { return 0 }
    if x >= containerWidth { return numberOfPhotos - 1 }
    // x < containerWidth, so this is below N but for a rounding at N near 2^52.
    return min(
      numberOfPhotos - 1, Int((x / containerWidth * Double(numberOfPhotos)).rounded(.down)))
  }
}

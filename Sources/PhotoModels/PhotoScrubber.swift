import Dispatch
import ImageTables

/// Where a scrubber gets its photos' thumbnails (Nimbus's scrubber data source).
@MainActor
public protocol PhotoScrubberDataSource: AnyObject {
  /// Read by ``PhotoScrubber/reloadData()`` only; the scrubber keeps the number until the
  /// next reload.
  func numberOfPhotos(in scrubber: PhotoScrubber) -> Int
  /// The thumbnail if it is ready now, else nil; must return at once (a cache hit).
  func thumbnail(at index: Int, in scrubber: PhotoScrubber) -> Bitmap?
}

/// Told when a touch changes the selection (Nimbus's scrubber delegate).
@MainActor
public protocol PhotoScrubberDelegate: AnyObject {
  func photoScrubberDidChangeSelection(_ scrubber: PhotoScrubber)
}

/// A headless thumbnail scrubber (Nimbus's `NIPhotoScrubberView`): the strip's layout,
/// which photo each slot shows and with which thumbnail, the selection and its
/// animation, and touches.
///
/// As in Nimbus:
/// - ``reloadData()`` must be called once the data source is set (and whenever the
///   photos change): it reads the number of photos, drops every thumbnail and asks
///   for the visible ones again. A change of ``bounds`` lays out again with the number
///   already read, and a slot asks for a thumbnail only when the photo it shows changes.
/// - The selection starts as none (`nil`, Nimbus's -1) and is hidden until a photo is
///   selected; a touch that changes it tells the delegate, code that changes it does not.
/// - Thumbnails that arrive later come in through ``didLoadThumbnail(_:at:)``.
///
/// <!-- snippet context: import ImageTables -->
/// <!-- snippet context: @MainActor final class Thumbnails: PhotoScrubberDataSource { -->
/// <!-- snippet context:   func numberOfPhotos(in scrubber: PhotoScrubber) -> Int { 40 } -->
/// <!-- snippet context:   func thumbnail(at i: Int, in _: PhotoScrubber) -> Bitmap? { nil } -->
/// <!-- snippet context: } -->
/// <!-- snippet context: let thumbnails = Thumbnails() -->
/// ```swift
/// let scrubber = PhotoScrubber(dataSource: thumbnails)
/// scrubber.bounds = (768, 44)
/// scrubber.reloadData()
/// scrubber.setSelectedPhotoIndex(0, animated: false)    // no animation from none
/// let move = scrubber.setSelectedPhotoIndex(12, animated: true)  // 0.2 s, ease-out
/// ```
@MainActor
public final class PhotoScrubber {
  /// One visible thumbnail.
  public struct Slot: Sendable {
    public var photoIndex: Int
    /// In the container's coordinates.
    public var frame: Frame
    public var thumbnail: Bitmap?
  }

  public weak var dataSource: (any PhotoScrubberDataSource)?
  public weak var delegate: (any PhotoScrubberDelegate)?
  /// The number of photos as read by the last ``reloadData()``.
  public private(set) var numberOfPhotos = 0
  public private(set) var layout = ScrubberLayout(width: 0, height: 0, numberOfPhotos: 0)
  public private(set) var slots: [Slot] = []
  /// The selected photo, or nil for none (Nimbus's -1), which is how a scrubber starts.
  /// Always in `0..<numberOfPhotos` when set.
  public private(set) var selectedPhotoIndex: Int?
  /// The selected photo's thumbnail, shown larger.
  public private(set) var selectionThumbnail: Bitmap?
  /// The latest animation of the selection, nil if the selection last moved without one
  /// (or was laid out again since, which places it without animation, as Nimbus does).
  /// It stays after it finishes: compare the clock with its ``SelectionAnimation/startTime``.
  public private(set) var selectionAnimation: SelectionAnimation?
  /// How many times a thumbnail was asked of the data source (for tests and tuning).
  public private(set) var thumbnailRequests = 0
  /// Seconds, on the clock animations are timed by.
  public let clock: @MainActor () -> Double

  /// - Parameter clock: seconds on a monotonic clock (the default is the system's
  ///   uptime); animations record their start on it.
  public init(
    dataSource: (any PhotoScrubberDataSource)? = nil,
    clock: @escaping @MainActor () -> Double = PhotoScrubber.uptime
  ) {
    self.dataSource = dataSource
    self.clock = clock
  }

  /// Seconds since the system started (monotonic).
  public static func uptime() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
  }

  /// The view's size; changing it lays the strip out again (with the number of photos
  /// the last reload read).
  public var bounds: (width: Int, height: Int) = (0, 0) {
    didSet { if bounds != oldValue { layoutSubviews() } }
  }

  /// Whether the selection is hidden: there is none, or no photo is visible.
  public var isSelectionHidden: Bool { selectedPhotoIndex == nil || layout.isContainerHidden }

  /// Where the selection stands, in the scrubber's bounds: the end of any animation.
  /// Nil when the selection is hidden (none, or no photo visible).
  public var selectionFrame: Frame? {
    guard let selectedPhotoIndex, !isSelectionHidden else { return nil }
    return layout.selectionFrame(forPhoto: selectedPhotoIndex)
  }

  /// Where the selection is drawn now: part way along ``selectionAnimation`` while it
  /// runs, else ``selectionFrame``. Nil when the selection is hidden.
  public var presentedSelectionFrame: Rect? {
    guard let target = selectionFrame else { return nil }
    if let animation = selectionAnimation {
      let elapsed = clock() - animation.startTime
      if !animation.isFinished(atElapsed: elapsed) { return animation.frame(atElapsed: elapsed) }
    }
    return Rect(target)
  }

  /// Reads the number of photos, drops every thumbnail and lays out, asking for the
  /// visible thumbnails again (Nimbus's `reloadData`). A selection the photos no longer
  /// reach becomes none. Without a data source, the slots are cleared and nothing is read.
  public func reloadData() {
    slots = []
    guard let dataSource else { return }
    numberOfPhotos = max(0, dataSource.numberOfPhotos(in: self))
    if let selected = selectedPhotoIndex, selected >= numberOfPhotos {
      selectedPhotoIndex = nil
      selectionThumbnail = nil
    }
    layoutSubviews()
  }

  /// Selects a photo from code; the delegate is not told (Nimbus's
  /// `setSelectedPhotoIndex:animated:`).
  ///
  /// - Selecting the photo already selected does nothing (nothing is asked again).
  /// - Otherwise the data source is asked for the photo's thumbnail, and, if `animated`
  ///   and a photo was selected before (and the strip is shown), the selection moves for
  ///   0.2 s on the ease-out curve from where it is drawn now (mid-way through a running
  ///   animation, if any) to its new frame.
  /// - `nil`, a negative index or one past the photos of the last reload selects none
  ///   (Nimbus's -1): the selection hides.
  ///
  /// - Returns: the animation this call started, or nil if it started none.
  @discardableResult
  public func setSelectedPhotoIndex(_ index: Int?, animated: Bool = false) -> SelectionAnimation? {
    let index = index.flatMap { (0..<numberOfPhotos).contains($0) ? $0 : nil }
    guard index != selectedPhotoIndex else { return nil }
    let startedFrom = presentedSelectionFrame
    selectedPhotoIndex = index
    selectionAnimation = nil
    guard let index else {
      selectionThumbnail = nil
      return nil
    }
    if animated, let startedFrom, let to = selectionFrame {
      selectionAnimation = SelectionAnimation(from: startedFrom, to: Rect(to), startTime: clock())
    }
    selectionThumbnail = thumbnail(at: index)
    return selectionAnimation
  }

  /// A touch at `x` in the container's coordinates: selects the photo under it without
  /// animation and, if that changed the selection, tells the delegate. Does nothing when
  /// there are no photos.
  public func touch(atContainerX x: Double) {
    guard numberOfPhotos > 0 else { return }
    let index = layout.photoIndex(atContainerX: x)
    guard index != selectedPhotoIndex else { return }
    setSelectedPhotoIndex(index, animated: false)
    delegate?.photoScrubberDidChangeSelection(self)
  }

  /// A thumbnail that was not ready arrived: the visible slot showing the photo takes it,
  /// and so does the selection.
  public func didLoadThumbnail(_ thumbnail: Bitmap, at index: Int) {
    if let slot = slots.firstIndex(where: { $0.photoIndex == index }) {
      slots[slot].thumbnail = thumbnail
    }
    if index == selectedPhotoIndex { selectionThumbnail = thumbnail }
  }

  /// Nimbus's `layoutSubviews`: the layout from the bounds and the number of photos;
  /// the selection placed without animation; then the visible thumbnails.
  private func layoutSubviews() {
    layout = ScrubberLayout(
      width: bounds.width, height: bounds.height, numberOfPhotos: numberOfPhotos)
    selectionAnimation = nil
    updateVisiblePhotos()
  }

  /// Nimbus's `updateVisiblePhotos`: one slot per visible photo; a slot whose photo
  /// changed (or that is new) asks for its thumbnail, and passes it to the selection
  /// if that photo is selected. (A new slot always asks, where Nimbus may take a
  /// recycled view, chosen by `anyObject`, whose old photo happens to match.)
  private func updateVisiblePhotos() {
    guard dataSource != nil else { return }
    if slots.count > layout.visibleCount { slots.removeLast(slots.count - layout.visibleCount) }
    for slot in 0..<layout.visibleCount {
      let photoIndex = layout.photoIndex(forSlot: slot)
      let frame = layout.slotFrame(slot)
      if slot < slots.count, slots[slot].photoIndex == photoIndex {
        slots[slot].frame = frame
        continue
      }
      let image = thumbnail(at: photoIndex)
      if photoIndex == selectedPhotoIndex { selectionThumbnail = image }
      let shown = Slot(photoIndex: photoIndex, frame: frame, thumbnail: image)
      if slot < slots.count { slots[slot] = shown } else { slots.append(shown) }
    }
  }

  private func thumbnail(at index: Int) -> Bitmap? {
    thumbnailRequests += 1
    return dataSource?.thumbnail(at: index, in: self)
  }
}

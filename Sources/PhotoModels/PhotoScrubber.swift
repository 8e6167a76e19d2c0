import ImageTables

/// Where a scrubber gets its photos' thumbnails (Nimbus's scrubber data source).
@MainActor
public protocol PhotoScrubberDataSource: AnyObject {
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
/// which photo each slot shows and with which thumbnail, the selection, and touches.
///
/// A slot asks for its thumbnail only when the photo it shows changes; thumbnails that
/// arrive later come in through ``didLoadThumbnail(_:at:)``.
@MainActor
public final class PhotoScrubber {
  /// One visible thumbnail.
  public struct Slot: Sendable {
    public var photoIndex: Int
    public var frame: Frame
    public var thumbnail: Bitmap?
  }

  public weak var dataSource: (any PhotoScrubberDataSource)?
  public weak var delegate: (any PhotoScrubberDelegate)?
  public private(set) var layout = ScrubberLayout(width: 0, height: 0, numberOfPhotos: 0)
  public private(set) var slots: [Slot] = []
  public private(set) var selectedPhotoIndex = 0
  /// The selected photo's thumbnail, shown larger.
  public private(set) var selectionThumbnail: Bitmap?
  /// How many times a thumbnail was asked of the data source (for tests and tuning).
  public private(set) var thumbnailRequests = 0

  public init(dataSource: (any PhotoScrubberDataSource)? = nil) {
    self.dataSource = dataSource
  }

  /// The view's size; setting it lays the strip out again.
  public var bounds: (width: Int, height: Int) = (0, 0) {
    didSet { relayout() }
  }

  /// Where the selection stands now, in the scrubber's bounds.
  public var selectionFrame: Frame {
    layout.visibleCount > 0 ? layout.selectionFrame(forPhoto: selectedPhotoIndex) : .zero
  }

  /// Reads the number of photos again and lays out; slots whose photo changed ask for
  /// their thumbnails again.
  public func reloadData() { relayout() }

  /// Selects a photo from code: the delegate is not told.
  public func setSelectedPhotoIndex(_ index: Int) {
    select(index, notify: false)
  }

  /// A touch at `x` in the container's coordinates: selects the photo under it and, if
  /// that changed the selection, tells the delegate.
  public func touch(atContainerX x: Double) {
    guard layout.numberOfPhotos > 0 else { return }
    select(layout.photoIndex(atContainerX: x), notify: true)
  }

  /// A thumbnail that was not ready arrived: visible slots showing the photo take it, and
  /// so does the selection.
  public func didLoadThumbnail(_ thumbnail: Bitmap, at index: Int) {
    for slot in slots.indices where slots[slot].photoIndex == index {
      slots[slot].thumbnail = thumbnail
    }
    if index == selectedPhotoIndex { selectionThumbnail = thumbnail }
  }

  private func select(_ index: Int, notify: Bool) {
    let clamped = layout.numberOfPhotos == 0 ? 0 : min(max(0, index), layout.numberOfPhotos - 1)
    guard clamped != selectedPhotoIndex || selectionThumbnail == nil else { return }
    let changed = clamped != selectedPhotoIndex
    selectedPhotoIndex = clamped
    if layout.numberOfPhotos > 0 { selectionThumbnail = thumbnail(at: clamped) }
    if changed, notify { delegate?.photoScrubberDidChangeSelection(self) }
  }

  private func relayout() {
    let count = dataSource.map { max(0, $0.numberOfPhotos(in: self)) } ?? 0
    layout = ScrubberLayout(width: bounds.width, height: bounds.height, numberOfPhotos: count)
    let previous = slots
    slots = (0..<layout.visibleCount).map { slot in
      let index = layout.photoIndex(forSlot: slot)
      let frame = layout.slotFrame(slot)
      if slot < previous.count, previous[slot].photoIndex == index {
        return Slot(photoIndex: index, frame: frame, thumbnail: previous[slot].thumbnail ?? nil)
      }
      return Slot(photoIndex: index, frame: frame, thumbnail: thumbnail(at: index))
    }
    if count == 0 {
      selectedPhotoIndex = 0
      selectionThumbnail = nil
    } else if selectedPhotoIndex >= count {
      selectedPhotoIndex = count - 1
      selectionThumbnail = thumbnail(at: selectedPhotoIndex)
    } else if selectionThumbnail == nil {
      selectionThumbnail = thumbnail(at: selectedPhotoIndex)
    }
  }

  private func thumbnail(at index: Int) -> Bitmap? {
    thumbnailRequests += 1
    return dataSource?.thumbnail(at: index, in: self)
  }
}

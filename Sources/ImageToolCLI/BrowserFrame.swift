import ImageTables
import PhotoModels
import Vips

/// Draws what a photo browser and its scrubber show, as one picture: the current photo
/// fitted in its page, its caption and counter, and the scrubber strip beneath, with
/// every thumbnail and the selection where the models put them.
///
/// ```
/// +------------------------------+  0
/// |            photo             |
/// |        [=====-----]          |  the progress bar, while the photo loads
/// +------------------------------+  pageHeight
/// | caption              3 of 12 |  captionHeight
/// +------------------------------+
/// |  [][][][][SEL][][][][][][]   |  scrubberHeight
/// +------------------------------+
/// ```
public enum BrowserFrame {
  public static let captionHeight = 40
  public static let scrubberHeight = 44
  static let ground: [Double] = [0, 0, 0]
  static let strip: [Double] = [40, 40, 44, 255]
  static let missing: [Double] = [90, 90, 90, 255]
  /// The progress bar's colours: the part loaded, and the rest of its track.
  public static let progressFilled: [UInt8] = [255, 255, 255]
  public static let progressTrack: [UInt8] = [90, 90, 90]
  public static let progressBarHeight = 6

  /// Where the current photo's progress bar lies in a page `width` by `pageHeight` (under
  /// the centred placeholder, as MWPhotoBrowser's progress view): half the page wide,
  /// centred, ``progressBarHeight`` high, 24 points above the page's bottom.
  public static func progressBarFrame(width: Int, pageHeight: Int) -> Frame {
    let barWidth = max(1, width / 2)
    return Frame(
      x: (width - barWidth) / 2, y: max(0, pageHeight - 24), width: barWidth,
      height: progressBarHeight)
  }

  /// How many points of a bar `barWidth` wide are filled at `fraction` (rounded).
  public static func filledWidth(_ fraction: Double, barWidth: Int) -> Int {
    Int((min(max(fraction, 0), 1) * Double(barWidth)).rounded())
  }

  /// The frame's size for a view `width` wide with pages `pageHeight` high.
  public static func size(width: Int, pageHeight: Int) -> (width: Int, height: Int) {
    (width, pageHeight + captionHeight + scrubberHeight)
  }

  /// Where the scrubber sits in the frame.
  public static func scrubberOrigin(pageHeight: Int) -> (x: Int, y: Int) {
    (0, pageHeight + captionHeight)
  }

  /// A moment of the selection's animation: where the selection is drawn `elapsed`
  /// seconds after it began to move.
  public struct SelectionMoment: Sendable {
    public let animation: SelectionAnimation
    public let elapsed: Double

    public init(animation: SelectionAnimation, elapsed: Double) {
      self.animation = animation
      self.elapsed = elapsed
    }

    /// The selection's frame then, on the pixel grid (rounded to the nearest point).
    public var frame: Frame { animation.frame(atElapsed: elapsed).rounded }
  }

  /// Draws the frame; the scrubber's bounds must be `width` by ``scrubberHeight``.
  /// The selection is drawn at `moment` of its animation if one is given, else where it
  /// stands (``PhotoScrubber/selectionFrame``); not at all when it is hidden. While the
  /// current photo loads (``PhotoBrowser/currentProgress``), its progress bar is drawn
  /// at ``progressBarFrame(width:pageHeight:)``: the loaded part ``progressFilled``, the
  /// rest ``progressTrack``.
  @MainActor
  public static func draw(
    browser: PhotoBrowser, scrubber: PhotoScrubber, width: Int, pageHeight: Int,
    selectionAt moment: SelectionMoment? = nil
  )
    throws -> VipsImage
  {
    let (frameWidth, frameHeight) = size(width: width, pageHeight: pageHeight)
    var frame = try VipsImage(
      pixels: [UInt8](repeating: 0, count: frameWidth * frameHeight * 3), width: frameWidth,
      height: frameHeight, bands: 3)
    // The page: the current photo (or its placeholder), fitted and centred.
    if let image = try browser.displayImage(at: browser.currentIndex)?.image() {
      let fitted = try image.thumbnail(width: width, height: pageHeight, crop: .none, size: .down)
      frame = try frame.overlaid(
        with: fitted, x: (width - fitted.width) / 2, y: (pageHeight - fitted.height) / 2)
    }
    if let progress = browser.currentProgress {
      let bar = progressBarFrame(width: width, pageHeight: pageHeight)
      frame = try frame.overlaid(
        with: progressBar(progress, width: width, pageHeight: pageHeight), x: bar.x, y: bar.y)
    }
    // The caption on the left, the counter on the right.
    if let caption = browser.caption {
      let text = try TextImage.white(caption)
      frame = try frame.overlaid(
        with: text, x: 10, y: pageHeight + (captionHeight - text.height) / 2)
    }
    if let counter = browser.counterText {
      let text = try TextImage.white(counter)
      frame = try frame.overlaid(
        with: text, x: width - text.width - 10, y: pageHeight + (captionHeight - text.height) / 2)
    }
    // The scrubber: the container strip with a thumbnail in every slot, then the selection.
    let layout = scrubber.layout
    let origin = scrubberOrigin(pageHeight: pageHeight)
    guard layout.visibleCount > 0 else { return try frame.castToUInt8() }
    let cells = try scrubber.slots.map { slot in
      try cell(slot.thumbnail, width: layout.thumbnailWidth, height: layout.thumbnailHeight)
    }
    let container = layout.containerFrame
    let row = try VipsImage.grid(cells, across: cells.count, spacing: 1, background: strip)
      .embedded(x: 1, y: 1, width: container.width, height: container.height, background: strip)
    frame = try frame.overlaid(with: row, x: origin.x + container.x, y: origin.y + container.y)
    guard let standing = scrubber.selectionFrame else {
      return try frame.extractingBands(0, count: 3)
    }
    let selection = moment?.frame ?? standing
    let selected = try cell(
      scrubber.selectionThumbnail, width: selection.width, height: selection.height
    ).bordered(width: 1, color: [255, 255, 255, 255])
    frame = try frame.overlaid(with: selected, x: origin.x + selection.x, y: origin.y + selection.y)
    return try frame.extractingBands(0, count: 3)
  }

  /// The progress bar at `fraction`, as RGB pixels the size of its frame.
  static func progressBar(_ fraction: Double, width: Int, pageHeight: Int) throws -> VipsImage {
    let bar = progressBarFrame(width: width, pageHeight: pageHeight)
    let filled = filledWidth(fraction, barWidth: bar.width)
    var pixels: [UInt8] = []
    pixels.reserveCapacity(bar.width * bar.height * 3)
    for _ in 0..<bar.height {
      for x in 0..<bar.width { pixels += x < filled ? progressFilled : progressTrack }
    }
    return try VipsImage(pixels: pixels, width: bar.width, height: bar.height, bands: 3)
  }

  /// A thumbnail filling `width` by `height`, or a grey cell while it is not ready.
  static func cell(_ thumbnail: Bitmap?, width: Int, height: Int) throws -> VipsImage {
    guard let thumbnail else {
      return try VipsImage(
        pixels: [UInt8](repeating: 0, count: width * height * 4), width: width, height: height,
        bands: 4
      ).linear([0, 0, 0, 0], missing, clampToUInt8: true)
    }
    return try thumbnail.image().toSRGB().withAlpha()
      .thumbnail(width: width, height: height, crop: .centre, size: .both)
  }
}

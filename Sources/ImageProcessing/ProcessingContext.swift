import ImageTables
import Vips

/// What a processor knows about the entry it draws: the format, the entity and the
/// background for opaque styles.
public struct ProcessingContext: Sendable {
  public var formatName: String
  public var family: String
  /// The target size in pixels (the format's points times its scale).
  public var pixelWidth: Int
  public var pixelHeight: Int
  /// Pixels per point: lengths given to processors in points are multiplied by it.
  public var scale: Int
  public var style: PixelStyle
  public var entityID: String
  /// What transparency is flattened onto for opaque styles (`bgr32`, `bgr555`, `gray8`).
  public var background: RGBA
  /// Shared by the formats of one fill (one decoded image); nil when there is none.
  public var memo: ProcessingMemo?
  /// Where the image entering the current step comes from in the photo; nil when the
  /// image is the photo itself, pixel for pixel. The pipeline keeps it up to date.
  ///
  /// It describes one image: a pipeline binds it to the image it is given, and a
  /// processor that hands a new image of its own making (a cut-out, a rotation, a
  /// composite) to another processor or pipeline hands it over without this geometry:
  /// ``geometry(of:)`` then gives that image's own pixels. Set it for the decode the
  /// context goes with (``SourceDecoder/Decoded``).
  public var geometry: SourceGeometry? {
    didSet { subject = nil }
  }
  /// The image ``geometry`` and ``memo`` describe, once a pipeline has bound them to it
  /// (``bound(to:)``); nil: the image the context is first given with.
  private var subject: VipsImage?

  public init(
    formatName: String, family: String, pixelWidth: Int, pixelHeight: Int, scale: Int = 1,
    style: PixelStyle = .bgra32, entityID: String = "", background: RGBA = RGBA(255, 255, 255),
    memo: ProcessingMemo? = nil, geometry: SourceGeometry? = nil
  ) {
    self.geometry = geometry
    self.formatName = formatName
    self.family = family
    self.pixelWidth = pixelWidth
    self.pixelHeight = pixelHeight
    self.scale = scale
    self.style = style
    self.entityID = entityID
    self.background = background
    self.memo = memo
  }

  /// The context of drawing `entityID` for `format`.
  public init(
    format: ImageFormat, entityID: String, background: RGBA = RGBA(255, 255, 255),
    memo: ProcessingMemo? = nil, geometry: SourceGeometry? = nil
  ) {
    self.init(
      formatName: format.name, family: format.family, pixelWidth: format.pixelWidth,
      pixelHeight: format.pixelHeight, scale: format.scale, style: format.style,
      entityID: entityID, background: background, memo: memo, geometry: geometry)
  }

  /// The geometry of `image` as the current step sees it: ``geometry`` when it
  /// describes `image` (``describes(_:)``), else `image`'s own pixels, whatever the
  /// photo was: a fill of a cut-out covers the format with the cut-out, unstretched.
  public func geometry(of image: VipsImage) -> SourceGeometry {
    guard let geometry, describes(image) else { return SourceGeometry(of: image) }
    return geometry
  }

  /// Whether ``geometry`` and ``memo`` are about `image`: it is the image they were
  /// bound to (the same libvips image, whichever wrapper holds it), or, not bound yet,
  /// it has the size the geometry gives the decode.
  public func describes(_ image: VipsImage) -> Bool {
    if let subject { return subject.isSameImage(as: image) }
    guard let geometry else { return true }
    let width = Double(geometry.region.width) * geometry.imageScale
    let height = Double(geometry.region.height) * geometry.imageScale
    return abs(Double(image.width) - width) < 1 && abs(Double(image.height) - height) < 1
  }

  /// This context about `image` alone: its ``geometry`` and ``memo`` describe `image`
  /// from now on. A context that described another image loses both (`image` is then
  /// its own photo, and what the memo holds of the other image does not apply).
  public func bound(to image: VipsImage) -> ProcessingContext {
    var bound = self
    if !describes(image) {
      bound.geometry = nil
      bound.memo = nil
    }
    bound.subject = image
    return bound
  }

  /// Says that ``geometry`` (as it is now) and ``memo`` describe `image`: what a
  /// pipeline does once a step has computed the geometry of the image it drew.
  mutating func describe(_ image: VipsImage) { subject = image }

  /// `points` in pixels at this context's scale, rounded.
  public func pixels(_ points: Double) -> Int { Int((points * Double(scale)).rounded()) }
}

extension VipsImage {
  /// Whether `other` holds the same libvips image (not merely equal pixels).
  func isSameImage(as other: VipsImage) -> Bool {
    withUnsafeVipsImagePointer { mine in other.withUnsafeVipsImagePointer { $0 == mine } }
  }
}

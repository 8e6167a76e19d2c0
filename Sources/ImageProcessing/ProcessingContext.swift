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
  public var geometry: SourceGeometry?

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

  /// The geometry of `image` as the current step sees it.
  public func geometry(of image: VipsImage) -> SourceGeometry {
    geometry ?? SourceGeometry(of: image)
  }

  /// `points` in pixels at this context's scale, rounded.
  public func pixels(_ points: Double) -> Int { Int((points * Double(scale)).rounded()) }
}

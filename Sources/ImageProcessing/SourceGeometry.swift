import Vips

/// Where the image a processor receives comes from: the photo's size as displayed
/// (after its EXIF orientation) and the rectangle of the photo, in the photo's own
/// pixels, that the image shows.
///
/// A family's one decode is shrunk on load, so its pixels are not the photo's: the
/// geometry lets `crop`, `fill` and `fit` work in the photo's coordinates and compute
/// sizes with libvips thumbnail's rounding, whatever size the decode happens to be.
///
/// ```swift
/// // A 6028x3391 photo decoded at a quarter of its size:
/// let geometry = SourceGeometry(photoWidth: 6028, photoHeight: 3391)
/// ```
public struct SourceGeometry: Sendable, Equatable {
  /// The photo's size as displayed, in pixels.
  public var photoWidth: Int
  public var photoHeight: Int
  /// The part of the photo the image shows, in the photo's pixels.
  public var region: PixelRect
  /// Image pixels per photo pixel: 1/8, 1/4 or 1/2 after JPEG shrink-on-load, else 1.
  /// Image pixel `x` (from the region's origin) covers photo pixels `x / imageScale`
  /// to `(x + 1) / imageScale`.
  public var imageScale: Double

  /// The whole photo, decoded at `imageScale`.
  public init(photoWidth: Int, photoHeight: Int, imageScale: Double = 1) {
    self.init(
      photoWidth: photoWidth, photoHeight: photoHeight,
      region: PixelRect(x: 0, y: 0, width: photoWidth, height: photoHeight),
      imageScale: imageScale)
  }

  public init(photoWidth: Int, photoHeight: Int, region: PixelRect, imageScale: Double = 1) {
    self.photoWidth = photoWidth
    self.photoHeight = photoHeight
    self.region = region
    self.imageScale = imageScale
  }

  /// An image that is its own photo: its pixels are the photo's.
  public init(of image: VipsImage) {
    self.init(photoWidth: image.width, photoHeight: image.height)
  }

  /// Whether `image` shows the region pixel for pixel (it was not shrunk on load).
  public func isActualSize(_ image: VipsImage) -> Bool {
    imageScale == 1 && image.width == region.width && image.height == region.height
  }
}

/// What a step does to the geometry, known before any pixel is decoded: it keeps a
/// part of the photo (a crop), or it resamples, shrinking the photo by `shrink`
/// (photo pixels per output pixel, the smaller of the two axes).
public enum GeometryStep: Sendable, Equatable {
  case region(SourceGeometry)
  case resample(shrink: Double)
}

/// A processor that works in the photo's coordinates (``SourceGeometry``) rather than
/// the pixels of the decode it is given. The pipeline plans the family's decode with
/// ``plan(_:context:)`` and passes the geometry in ``ProcessingContext/geometry``.
public protocol SourceGeometryProcessor: ImageProcessor {
  /// What this step does to `geometry`, without pixels.
  func plan(_ geometry: SourceGeometry, context: ProcessingContext) -> GeometryStep
}

/// A processor whose image shows the same part of the photo as the image it was given,
/// on the same pixels (a colour change, a blur, a mask): the geometry goes through it
/// unchanged. After any other processor that hands back an image of its own making (a
/// plugin, a rotation, a composite), the pipeline's later steps see that image's own
/// pixels (``ProcessingContext/geometry(of:)``).
public protocol SameGeometryProcessor: ImageProcessor {}

import Vips

/// The sizes libvips's thumbnail gives a region shrunk into a box: the same shrink
/// factors and the same rounding (`vips_thumbnail` then `vips_resize`), so that an
/// entry has exactly the size libvips would give it.
///
/// ```swift
/// let fit = ThumbnailGeometry(width: 600, height: 400, box: (200, 150), covers: false)
/// (fit.width, fit.height)  // (200, 133)
/// ```
public struct ThumbnailGeometry: Sendable, Equatable {
  /// Region pixels per output pixel, across and down.
  public let horizontalShrink: Double
  public let verticalShrink: Double
  /// The resized size.
  public let width: Int
  public let height: Int

  /// - Parameters:
  ///   - covers: true to cover the box (a crop follows), false to fit inside it.
  ///   - enlarges: whether a region smaller than the box may grow.
  public init(
    width: Int, height: Int, box: (width: Int, height: Int), covers: Bool, enlarges: Bool = true
  ) {
    var h = Double(width) / Double(box.width)
    var v = Double(height) / Double(box.height)
    // Covering keeps the smaller shrink (the axis that must fill); fitting the larger.
    let common = covers ? min(h, v) : max(h, v)
    h = common
    v = common
    if !enlarges {
      h = max(1, h)
      v = max(1, v)
    }
    // Never shrink an axis to nothing.
    h = min(h, Double(width))
    v = min(v, Double(height))
    horizontalShrink = h
    verticalShrink = v
    self.width = Self.resizedLength(width, scale: 1 / h)
    self.height = Self.resizedLength(height, scale: 1 / v)
  }

  /// The smaller of the two shrinks: what shrink-on-load may take from.
  public var commonShrink: Double { min(horizontalShrink, verticalShrink) }

  /// `vips_resize`'s output length for `length` pixels scaled by `scale`.
  static func resizedLength(_ length: Int, scale: Double) -> Int {
    max(1, Int((Double(length) * scale + 0.5).rounded(.down)))
  }

  /// Resamples `image`, which shows a region of `geometry`, to this size once: with
  /// thumbnail's own scales when the image is the region pixel for pixel, else with
  /// the residual scale left after shrink-on-load (as thumbnail resizes after its own
  /// shrink-on-load), nudged only as far as needed to land on this size. Alpha is
  /// premultiplied around the resample, as thumbnail does.
  ///
  /// With a `window` (inside this size), the result is that part of the resample, the
  /// same pixels as cropping it afterwards, computed alone where the resize allows.
  ///
  /// An image that still carries its ICC profile (a decode made for pipelines that
  /// resample first, see ``SourceDecoder``) is resampled as it is and the profile is
  /// applied to the result: thumbnail's order with `export_profile` sRGB, and far fewer
  /// pixels to transform.
  public func resample(_ image: VipsImage, geometry: SourceGeometry, window: PixelRect? = nil)
    throws(VipsError) -> VipsImage
  {
    let resampled = try resampleKeepingProfile(image, geometry: geometry, window: window)
    return resampled.hasICCProfile ? try resampled.toSRGB() : resampled
  }

  private func resampleKeepingProfile(
    _ source: VipsImage, geometry: SourceGeometry, window: PixelRect?
  ) throws(VipsError) -> VipsImage {
    // A pipeline's steps before the resample (a blur) computed once, not again for each
    // region the resample reads.
    let image = try source.inMemoryOnThisThread()
    var scales = (h: 1 / horizontalShrink, v: 1 / verticalShrink)
    if !geometry.isActualSize(image) {
      scales = (
        Self.scale(image.width, by: scales.h / geometry.imageScale, to: width),
        Self.scale(image.height, by: scales.v / geometry.imageScale, to: height)
      )
    }
    let resized: VipsImage
    if image.width == width, image.height == height, scales == (1, 1) {
      resized = image
    } else if image.hasAlpha {
      // libvips 8.14's thumbnail resamples premultiplied alpha in float, then casts back.
      if let window {
        return try image.resizedPremultiplied(
          scale: scales.h, verticalScale: scales.v, cropping: window)
      }
      resized = try image.resizedPremultiplied(scale: scales.h, verticalScale: scales.v)
    } else if let window {
      return try image.resized(scale: scales.h, verticalScale: scales.v, cropping: window)
    } else {
      resized = try image.resized(scale: scales.h, verticalScale: scales.v)
    }
    guard let window, window != PixelRect(x: 0, y: 0, width: resized.width, height: resized.height)
    else { return resized }
    // Kept inside what the resample gave, should a libvips path round a size otherwise.
    let cropWidth = min(window.width, resized.width)
    let cropHeight = min(window.height, resized.height)
    return try resized.cropped(
      left: min(window.x, resized.width - cropWidth),
      top: min(window.y, resized.height - cropHeight),
      width: cropWidth, height: cropHeight)
  }

  /// The scale nearest `wanted` that takes `length` pixels to exactly `target` with
  /// vips_resize's rounding.
  static func scale(_ length: Int, by wanted: Double, to target: Int) -> Double {
    var scale = wanted
    if resizedLength(length, scale: scale) != target {
      // The edge of the rounding interval nearest the wanted scale.
      let edge = (Double(target) + (resizedLength(length, scale: scale) < target ? -0.5 : 0.5))
      scale = edge / Double(length)
    }
    while resizedLength(length, scale: scale) < target { scale = scale.nextUp }
    while resizedLength(length, scale: scale) > target { scale = scale.nextDown }
    return scale
  }
}

import Vips

/// The outline a processor cut the image to (`circle`, `roundedCorners`), carried in
/// the image's metadata so that later steps (`border`) follow it.
struct Shape: Equatable {
  var rect: PixelRect
  var radius: Double

  static let metadataName = "imagetool-shape"

  /// The shape of `image`: the one recorded, or its whole rectangle.
  init(of image: VipsImage) {
    let fields = image.metadata(Self.metadataName)?.split(separator: ",").compactMap { Double($0) }
    if let fields, fields.count == 5, Int(fields[2]) <= image.width, Int(fields[3]) <= image.height
    {
      rect = PixelRect(
        x: Int(fields[0]), y: Int(fields[1]), width: Int(fields[2]), height: Int(fields[3]))
      radius = fields[4]
    } else {
      rect = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
      radius = 0
    }
  }

  init(rect: PixelRect, radius: Double) {
    self.rect = rect
    self.radius = radius
  }

  /// `image` cut to this shape (alpha outside it) and tagged with it.
  func cut(_ image: VipsImage) throws(VipsError) -> VipsImage {
    var mask = try VipsImage.roundedRectangleMask(
      width: rect.width, height: rect.height, radius: radius)
    if rect != PixelRect(x: 0, y: 0, width: image.width, height: image.height) {
      mask = try mask.embedded(x: rect.x, y: rect.y, width: image.width, height: image.height)
    }
    return try image.toSRGB().masked(
      by: mask,
      metadata: [
        (Self.metadataName, "\(rect.x),\(rect.y),\(rect.width),\(rect.height),\(radius)")
      ])
  }
}

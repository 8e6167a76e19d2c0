import CVips
import CVipsShim

extension VipsImage {
  /// A one-band 8-bit mask, 255 inside a `width` by `height` rectangle whose corners
  /// are rounded by `radius` pixels and 0 outside, with a one-pixel anti-aliased edge.
  ///
  /// A square with `radius` half its side is a disc:
  ///
  /// ```swift
  /// let disc = try VipsImage.roundedRectangleMask(width: 64, height: 64, radius: 32)
  /// ```
  ///
  /// Masks are the same for every photo of a format, so the most recent ones are kept,
  /// computed, and shared (an image is immutable).
  public static func roundedRectangleMask(width: Int, height: Int, radius: Double)
    throws(VipsError) -> VipsImage
  {
    guard width > 0, height > 0, radius >= 0, radius.isFinite else {
      throw .invalidArgument(
        operation: "mask", message: "\(width)x\(height) with radius \(radius) is not a shape")
    }
    let key = MaskCache.Key(width: width, height: height, radius: radius)
    if let known = MaskCache.shared.mask(for: key) { return known }
    let mask = try makeRoundedRectangleMask(width: width, height: height, radius: radius)
    MaskCache.shared.keep(mask, for: key)
    return mask
  }

  private static func makeRoundedRectangleMask(width: Int, height: Int, radius: Double)
    throws(VipsError) -> VipsImage
  {
    try create("mask") { out in
      cvips_rounded_rectangle_mask(Int32(width), Int32(height), radius, out)
    }
  }

  /// Multiplies the image's alpha by `mask` (one band, 0...255, same size), adding an
  /// opaque alpha first when there is none; the result is 8-bit, with the string fields
  /// `metadata` set on it.
  public func masked(by mask: VipsImage, metadata: [(name: String, value: String)] = [])
    throws(VipsError) -> VipsImage
  {
    try checkSameSize(mask, operation: "mask")
    let eightBit = try castToUInt8()
    // In memory (a resampled entry): the mask joined as alpha, or multiplied into it, in
    // one loop of the shim, the result in memory too, tagged before anyone else can see it.
    if let joined = try eightBit.joinedInMemory(mask, metadata: metadata) {
      return joined
    }
    var tagged = try eightBit.maskedByOperations(mask)
    for field in metadata { tagged = try tagged.settingMetadata(field.name, field.value) }
    return tagged
  }

  /// Whether the pixels are in memory (written by libvips or the shim), not computed on
  /// demand.
  var isInMemory: Bool { cvips_image_is_in_memory(pointer) != 0 }

  /// ``maskedByOperations(_:)`` computed at once into memory by the shim (the mask
  /// joined as alpha, or multiplied into the alpha), with `metadata` set; nil when this
  /// image or the mask is not an 8-bit image in memory.
  private func joinedInMemory(_ mask: VipsImage, metadata: [(name: String, value: String)])
    throws(VipsError) -> VipsImage?
  {
    guard isInMemory, mask.isInMemory, mask.bands == 1, mask.format == .uchar else { return nil }
    let alpha = hasAlpha
    return try withExtendedLifetime(mask) { () throws(VipsError) in
      try inMemory(alpha ? "mask" : "bandjoin") { out in
        let status =
          alpha
          ? cvips_mask_alpha_in_memory(pointer, mask.pointer, out)
          : cvips_join_mask_in_memory(pointer, mask.pointer, out)
        if status == 0, let image = out.pointee {
          for field in metadata { vips_image_set_string(image, field.name, field.value) }
        }
        return status
      }
    }
  }

  /// ``masked(by:metadata:)`` as libvips operations, for an 8-bit image: what the shim's
  /// loops are checked against.
  func maskedByOperations(_ mask: VipsImage) throws(VipsError) -> VipsImage {
    let eightBit = self
    // Opaque: the mask is the alpha (255 x m / 255 = m), one operation.
    guard eightBit.hasAlpha else { return try eightBit.joiningBands(mask.castToUInt8()) }
    let image = eightBit
    let colour = try image.extractingBands(0, count: image.bands - 1)
    let alpha = try image.extractingBands(image.bands - 1)
      .multiplying(mask).linear([1.0 / 255], [0.5], clampToUInt8: true)
    return try colour.joiningBands(alpha)
  }

  /// Paints `color` (one value per band) where `mask` is 255, keeps the image where it
  /// is 0, and mixes the two in between.
  public func painted(_ color: [Double], where mask: VipsImage) throws(VipsError) -> VipsImage {
    try checkSameSize(mask, operation: "paint")
    let values = (0..<bands).map { band in
      band < color.count ? color[band] : (format == .ushort ? 65535 : 255)
    }
    let fill = try derive("new_from_image") { input, out in
      out.pointee = vips_image_new_from_image(input, values, Int32(values.count))
      return out.pointee == nil ? -1 : 0
    }
    return try derive("ifthenelse", with: [mask, fill]) { input, out in
      cvips_ifthenelse_blend(mask.pointer, fill.pointer, input, out)
    }
  }

  /// Draws a border `width` pixels wide inside the edge of `rect` (default: the whole
  /// image), following its corners rounded by `cornerRadius` (a disc's border when the
  /// rectangle is a square and the radius half its side). Outside `rect` nothing changes.
  public func bordered(
    width borderWidth: Int, color: [Double], cornerRadius: Double = 0, in rect: PixelRect? = nil
  ) throws(VipsError) -> VipsImage {
    guard borderWidth > 0 else { return self }
    let rect = rect ?? PixelRect(x: 0, y: 0, width: width, height: height)
    let outer = try Self.roundedRectangleMask(
      width: rect.width, height: rect.height, radius: cornerRadius
    ).embedded(x: rect.x, y: rect.y, width: width, height: height)
    let innerWidth = rect.width - 2 * borderWidth
    let innerHeight = rect.height - 2 * borderWidth
    guard innerWidth > 0, innerHeight > 0 else { return try painted(color, where: outer) }
    let inner = try Self.roundedRectangleMask(
      width: innerWidth, height: innerHeight, radius: max(0, cornerRadius - Double(borderWidth))
    ).embedded(x: rect.x + borderWidth, y: rect.y + borderWidth, width: width, height: height)
    let ring = try outer.multiplying(inner.linear([-1], [255]))
      .linear([1.0 / 255], [0.5], clampToUInt8: true)
    return try painted(color, where: ring)
  }

  /// Draws `overlay` over this image at (`x`, `y`) with alpha blending (libvips's
  /// composite2 in `over` mode); both become sRGB with alpha.
  public func overlaid(with overlay: VipsImage, x: Int = 0, y: Int = 0) throws(VipsError)
    -> VipsImage
  {
    let base = try toSRGB().withAlpha()
    let placed = try overlay.toSRGB().withAlpha()
      .embedded(x: x, y: y, width: width, height: height, background: [0, 0, 0, 0])
    return try base.derive("composite2", with: [placed]) { input, out in
      cvips_composite2(input, placed.pointer, out, VIPS_BLEND_MODE_OVER)
    }.castToUInt8()
  }

  func checkSameSize(_ other: VipsImage, operation: String) throws(VipsError) {
    guard other.width == width, other.height == height else {
      throw .invalidArgument(
        operation: operation,
        message: "the mask is \(other.width)x\(other.height), the image \(width)x\(height)")
    }
  }
}

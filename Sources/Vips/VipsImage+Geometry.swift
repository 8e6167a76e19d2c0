import CVips
import CVipsShim

extension VipsImage {
  /// Scales by `scale` horizontally and `verticalScale` (default: the same) vertically,
  /// with libvips's Lanczos 3 kernel.
  ///
  /// An 8-bit image already in memory (a decode, a ``materialized()`` image) that
  /// shrinks on both axes is resized on the calling thread by the shim's own loops,
  /// which run `vips_resize`'s arithmetic (the same bytes, but where libvips's regions
  /// move a sampling position by one phase: at most 2 levels) at a fraction of its cost
  /// for family-sized images; anything else goes through `vips_resize`.
  public func resized(scale: Double, verticalScale: Double? = nil) throws(VipsError) -> VipsImage {
    let vertical = verticalScale ?? scale
    guard scale > 0, vertical > 0, scale.isFinite, vertical.isFinite else {
      throw .invalidArgument(
        operation: "resize", message: "scales must be positive, not \(scale)x\(vertical)")
    }
    if let inMemory = try resizedInMemory(scale: scale, verticalScale: vertical) {
      return inMemory
    }
    return try resizedByLibvips(scale: scale, verticalScale: vertical)
  }

  /// The shim's in-memory resize alone, or nil when this image is not for it (not
  /// 8-bit, not in memory, or enlarged on an axis).
  func resizedInMemory(scale: Double, verticalScale: Double) throws(VipsError) -> VipsImage? {
    try inMemory { cvips_resize_uchar_in_memory(pointer, $0, scale, verticalScale) }
  }

  /// The `window` of ``resized(scale:verticalScale:)``: the same pixels as resizing and
  /// then cropping, but an 8-bit image in memory that shrinks computes only the window
  /// (a fill of a 3:2 photo into a square keeps two thirds of the resize).
  ///
  /// <!-- snippet context: let photo = try VipsImage(file: "photo.jpg") -->
  /// ```swift
  /// let square = try photo.resized(scale: 0.25, cropping: PixelRect(x: 40, y: 0, width: 218, height: 218))
  /// ```
  public func resized(scale: Double, verticalScale: Double? = nil, cropping window: PixelRect)
    throws(VipsError) -> VipsImage
  {
    let vertical = verticalScale ?? scale
    if scale > 0, vertical > 0, scale.isFinite, vertical.isFinite,
      let inMemory = try resizedInMemory(scale: scale, verticalScale: vertical, cropping: window)
    {
      return inMemory
    }
    return try resized(scale: scale, verticalScale: vertical).cropped(
      left: window.x, top: window.y, width: window.width, height: window.height)
  }

  /// The shim's in-memory windowed resize alone, or nil when this image is not for it.
  func resizedInMemory(scale: Double, verticalScale: Double, cropping window: PixelRect)
    throws(VipsError) -> VipsImage?
  {
    try inMemory {
      cvips_resize_uchar_in_memory_window(
        pointer, $0, scale, verticalScale, Int32(window.x), Int32(window.y), Int32(window.width),
        Int32(window.height))
    }
  }

  /// Runs a shim function that returns 0 and an image, 1 when the image is not for it,
  /// or -1 with libvips's error (named as `operation`'s).
  func inMemory(
    _ operation: String = "resize",
    _ call: (UnsafeMutablePointer<UnsafeMutablePointer<CVips.VipsImage>?>) -> Int32
  ) throws(VipsError) -> VipsImage? {
    var out: UnsafeMutablePointer<CVips.VipsImage>? = nil
    let status = withExtendedLifetime(self) { call(&out) }
    if status == 0, let out { return VipsImage(taking: out, source: source, anchors: anchors) }
    guard status > 0 else { throw VipsError.fromLibvips(operation: operation, source: source) }
    return nil
  }

  /// Resizes an image with alpha as libvips 8.14's thumbnail does, so that colour
  /// under transparent pixels does not bleed into visible ones: premultiplied, resized
  /// in float, unpremultiplied, and cast back to this image's format. An 8-bit image in
  /// memory that shrinks takes the shim's in-memory path (the same operations in one
  /// pass each); anything else runs them in libvips.
  ///
  /// An image without alpha has nothing to premultiply: it is resized as
  /// ``resized(scale:verticalScale:)`` resizes it.
  public func resizedPremultiplied(scale: Double, verticalScale: Double? = nil) throws(VipsError)
    -> VipsImage
  {
    let vertical = verticalScale ?? scale
    guard scale > 0, vertical > 0, scale.isFinite, vertical.isFinite else {
      throw .invalidArgument(
        operation: "resize", message: "scales must be positive, not \(scale)x\(vertical)")
    }
    guard hasAlpha else { return try resized(scale: scale, verticalScale: vertical) }
    if let inMemory = try resizedPremultipliedInMemory(scale: scale, verticalScale: vertical) {
      return inMemory
    }
    return try premultipliedResizedByLibvips(scale: scale, verticalScale: vertical)
  }

  /// The `window` of ``resizedPremultiplied(scale:verticalScale:)``: the same pixels as
  /// resizing and then cropping, but an 8-bit image in memory that shrinks computes
  /// only the window. A window not inside the resize is an error.
  public func resizedPremultiplied(
    scale: Double, verticalScale: Double? = nil, cropping window: PixelRect
  ) throws(VipsError) -> VipsImage {
    let vertical = verticalScale ?? scale
    guard hasAlpha else {
      return try resized(scale: scale, verticalScale: vertical, cropping: window)
    }
    if scale > 0, vertical > 0, scale.isFinite, vertical.isFinite,
      let inMemory = try resizedPremultipliedInMemory(
        scale: scale, verticalScale: vertical, cropping: window)
    {
      return inMemory
    }
    return try resizedPremultiplied(scale: scale, verticalScale: vertical).cropped(
      left: window.x, top: window.y, width: window.width, height: window.height)
  }

  /// The shim's in-memory windowed premultiplied resize alone, or nil when this image is
  /// not for it.
  func resizedPremultipliedInMemory(
    scale: Double, verticalScale: Double, cropping window: PixelRect
  ) throws(VipsError) -> VipsImage? {
    try inMemory {
      cvips_resize_premultiplied_uchar_in_memory_window(
        pointer, $0, scale, verticalScale, Int32(window.x), Int32(window.y), Int32(window.width),
        Int32(window.height))
    }
  }

  /// The shim's in-memory premultiplied resize alone, or nil when this image is not for
  /// it (not 8-bit, not in memory, no alpha, tagged 16-bit, or enlarged on an axis).
  func resizedPremultipliedInMemory(scale: Double, verticalScale: Double) throws(VipsError)
    -> VipsImage?
  {
    try inMemory { cvips_resize_premultiplied_uchar_in_memory(pointer, $0, scale, verticalScale) }
  }

  /// The shim's in-memory resize of the premultiplied image, left premultiplied (float
  /// samples): what `vips_smartcrop` resizes an image with alpha to. Nil when this image
  /// is not for it (as ``resizedPremultipliedInMemory(scale:verticalScale:)``).
  func resizedPremultipliedFloatInMemory(scale: Double, verticalScale: Double) throws(VipsError)
    -> VipsImage?
  {
    try inMemory { cvips_resize_premultiplied_float_in_memory(pointer, $0, scale, verticalScale) }
  }

  /// ``resizedPremultiplied(scale:verticalScale:)`` through libvips's operations always.
  public func premultipliedResizedByLibvips(scale: Double, verticalScale: Double? = nil)
    throws(VipsError) -> VipsImage
  {
    try premultiplied().resizedByLibvips(scale: scale, verticalScale: verticalScale)
      .unpremultiplied().cast(to: format)
  }

  /// ``resized(scale:verticalScale:)`` through `vips_resize` always: the reference the
  /// in-memory path is checked against.
  public func resizedByLibvips(scale: Double, verticalScale: Double? = nil) throws(VipsError)
    -> VipsImage
  {
    let vertical = verticalScale ?? scale
    return try derive("resize") { input, out in cvips_resize(input, out, scale, vertical) }
  }

  /// The rectangle at (`left`, `top`) of `width` by `height` pixels (libvips's extract_area).
  public func cropped(left: Int, top: Int, width: Int, height: Int) throws(VipsError) -> VipsImage {
    guard left >= 0, top >= 0, width > 0, height > 0, left + width <= self.width,
      top + height <= self.height
    else {
      throw .invalidArgument(
        operation: "crop",
        message: "the rectangle \(width)x\(height) at (\(left), \(top)) is not inside the "
          + "\(self.width)x\(self.height) image")
    }
    return try derive("extract_area") { input, out in
      cvips_extract_area(input, out, Int32(left), Int32(top), Int32(width), Int32(height))
    }
  }

  /// A `width` by `height` crop that keeps the part `interesting` chooses.
  public func smartCropped(width: Int, height: Int, interesting: Interesting = .attention)
    throws(VipsError) -> VipsImage
  {
    guard width > 0, height > 0 else {
      throw .invalidArgument(
        operation: "smartcrop", message: "the size \(width)x\(height) is empty")
    }
    return try derive("smartcrop") { input, out in
      cvips_smartcrop(input, out, Int32(width), Int32(height), interesting.vips)
    }
  }

  /// Where libvips's attention measure (skin, saturated colour, edges) centres a
  /// `width` by `height` crop of this image, in this image's pixels.
  public func attentionCentre(width: Int, height: Int) throws(VipsError) -> (x: Int, y: Int) {
    var x: Int32 = 0
    var y: Int32 = 0
    let status = withExtendedLifetime(self) {
      cvips_attention_centre(pointer, Int32(width), Int32(height), &x, &y)
    }
    guard status == 0 else { throw VipsError.fromLibvips(operation: "smartcrop", source: source) }
    return (Int(x), Int(y))
  }

  /// Where the attention measure centres a `width` by `height` crop of this image as
  /// it looks once colour-managed: ``attentionCentre(width:height:)`` of ``toSRGB()``,
  /// for an image that still carries its ICC profile. As thumbnail measures after its
  /// resize and export profile, the profile is applied to the measure's 32-pixel
  /// miniature, not to the image, when the image ``isSRGBButForICCProfile``.
  public func managedAttentionCentre(width: Int, height: Int) throws(VipsError) -> (
    x: Int, y: Int
  ) {
    guard hasICCProfile else { return try attentionCentre(width: width, height: height) }
    if isSRGBButForICCProfile,
      let found = try attentionCentreInC(width: width, height: height, managed: true)
    {
      return found
    }
    return try toSRGB().attentionCentre(width: width, height: height)
  }

  /// ``attentionCentre(width:height:)`` by the shim's C loops alone, or nil when this
  /// image is not for them (not 8-bit, or neither sRGB nor B_W): then the measure runs
  /// as libvips operations. `managed`: the miniature has the ICC profile applied.
  func attentionCentreInC(width: Int, height: Int, managed: Bool = false) throws(VipsError) -> (
    x: Int, y: Int
  )? {
    var x: Int32 = 0
    var y: Int32 = 0
    let status = withExtendedLifetime(self) {
      managed
        ? cvips_attention_centre_of_managed_in_c(pointer, Int32(width), Int32(height), &x, &y)
        : cvips_attention_centre_in_c(pointer, Int32(width), Int32(height), &x, &y)
    }
    guard status <= 0 else { return nil }
    guard status == 0 else { throw VipsError.fromLibvips(operation: "smartcrop", source: source) }
    return (Int(x), Int(y))
  }

  /// ``attentionCentre(width:height:)`` as `vips_smartcrop` itself reports it: the
  /// reference the shim's measure is checked against.
  public func attentionCentreByLibvips(width: Int, height: Int) throws(VipsError) -> (
    x: Int, y: Int
  ) {
    var x: Int32 = 0
    var y: Int32 = 0
    _ = try derive("smartcrop") { input, out in
      cvips_smartcrop_attention_centre(input, out, Int32(width), Int32(height), &x, &y)
    }
    return (Int(x), Int(y))
  }

  /// Places this image at (`x`, `y`) on a `width` by `height` canvas of `background`.
  public func embedded(x: Int, y: Int, width: Int, height: Int, background: [Double] = [0])
    throws(VipsError) -> VipsImage
  {
    try derive("embed") { input, out in
      cvips_embed(
        input, out, Int32(x), Int32(y), Int32(width), Int32(height), VIPS_EXTEND_BACKGROUND,
        background, Int32(background.count))
    }
  }

  /// Turns the image clockwise by `quarterTurns` quarter turns.
  public func rotated(quarterTurns: Int) throws(VipsError) -> VipsImage {
    let angle: VipsAngle =
      switch ((quarterTurns % 4) + 4) % 4 {
      case 1: VIPS_ANGLE_D90
      case 2: VIPS_ANGLE_D180
      case 3: VIPS_ANGLE_D270
      default: VIPS_ANGLE_D0
      }
    return try derive("rot") { input, out in cvips_rot(input, out, angle) }
  }

  /// Applies the EXIF orientation, so the image is upright, and resets it to 1.
  public func autorotated() throws(VipsError) -> VipsImage {
    try derive("autorot") { input, out in cvips_autorot(input, out) }
  }

  /// A copy tagged with EXIF orientation `orientation` (1 to 8); the pixels do not move.
  /// Savers write the tag, so a viewer (or ``autorotated()``) turns the image to show it.
  public func settingOrientation(_ orientation: Int) throws(VipsError) -> VipsImage {
    guard (1...8).contains(orientation) else {
      throw .invalidArgument(operation: "orientation", message: "\(orientation) is not from 1 to 8")
    }
    let copy = try derive("copy") { input, out in cvips_copy(input, out) }
    vips_image_set_int(copy.pointer, VIPS_META_ORIENTATION, Int32(orientation))
    return copy
  }

  /// This image with `other` below it, `spacing` pixels apart, left-aligned; the
  /// narrower one is padded with `background` (libvips's join).
  public func joined(below other: VipsImage, spacing: Int = 0, background: [Double] = [0])
    throws(VipsError) -> VipsImage
  {
    try derive("join", with: [other]) { input, out in
      cvips_join(
        input, other.pointer, out, VIPS_DIRECTION_VERTICAL, Int32(spacing), background,
        Int32(background.count))
    }
  }

  /// Joins images in a grid, `across` to a row, left to right then top to bottom,
  /// `spacing` pixels apart on `background` (libvips's arrayjoin). Cells take the
  /// size of the largest image; bands and formats are matched first.
  public static func grid(
    _ images: [VipsImage], across: Int, spacing: Int = 0, background: [Double] = [0]
  ) throws(VipsError) -> VipsImage {
    guard let first = images.first, across > 0 else {
      throw .invalidArgument(operation: "arrayjoin", message: "a grid needs images and across > 0")
    }
    var pointers: [UnsafeMutablePointer<CVips.VipsImage>?] = images.map(\.pointer)
    return try first.derive("arrayjoin", with: Array(images.dropFirst())) { _, out in
      cvips_arrayjoin(
        &pointers, out, Int32(pointers.count), Int32(across), Int32(spacing), background,
        Int32(background.count))
    }
  }
}

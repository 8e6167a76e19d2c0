import ImageTables
import Vips

/// Turns a processed image into the exact bytes of a ``PixelStyle``.
///
/// Whatever the image is (CMYK, an ICC profile, 16-bit, grey with alpha, a palette),
/// it becomes 8-bit sRGB first; then `bgra32` keeps alpha (premultiplied on store),
/// the opaque styles blend it onto the background, and `gray8` takes luminance.
///
/// <!-- snippet context: import ImageTables -->
/// <!-- snippet context: import Vips -->
/// <!-- snippet context: let image = try VipsImage(file: "photo.jpg").resized(scale: 0.1) -->
/// <!-- snippet context: let avatar = try ImageFormat(name: "avatar", width: 64, height: 64) -->
/// <!-- snippet context: let folder = URL(fileURLWithPath: ".imgtool-cache") -->
/// <!-- snippet context: let table = try ImageTable(format: avatar, directory: folder) -->
/// <!-- snippet context: let (id, version) = ("people/ada.jpg", "3f2a") -->
/// ```swift
/// let raster = try Rasterizer.prepare(
///   image, style: .bgra32, background: RGBA(255, 255, 255), slotWidth: 64, slotHeight: 64)
/// try table.write(entityID: id, sourceVersion: version, width: raster.width, height: raster.height) {
///   raster.draw(into: $0)
/// }
/// ```
public struct Rasterizer: Sendable {
  /// The image's size in pixels: at most the slot's.
  public let width: Int
  public let height: Int
  public let style: PixelStyle
  /// Packed 8-bit samples: RGBA for `bgra32`, RGB for `bgr32` and `bgr555`, grey for
  /// `gray8`, where libvips computed them.
  let samples: PixelBuffer

  /// Converts `image` for `style`; fails if it is larger than the slot.
  public static func prepare(
    _ image: VipsImage, style: PixelStyle, background: RGBA, slotWidth: Int, slotHeight: Int,
    format: String = ""
  ) throws(ProcessingError) -> Rasterizer {
    guard image.width <= slotWidth, image.height <= slotHeight else {
      throw .largerThanSlot(
        format: format, width: image.width, height: image.height, slotWidth: slotWidth,
        slotHeight: slotHeight)
    }
    do {
      let backdrop = [Double(background.red), Double(background.green), Double(background.blue)]
      let srgb = try image.toSRGB()
      let converted: VipsImage =
        switch style {
        case .bgra32: try srgb.withAlpha()
        case .bgr32, .bgr555: try srgb.flattened(background: backdrop)
        case .gray8: try srgb.flattened(background: backdrop).toGreyscale()
        }
      return Rasterizer(
        width: converted.width, height: converted.height, style: style,
        samples: try converted.computePixels(onThisThread: true))
    } catch {
      throw .rasterizeFailed(format: format, reason: error.reason)
    }
  }

  /// Stores every pixel into `canvas` in its style, row by row at its stride: one pass
  /// that premultiplies and puts the bands in the style's order.
  public func draw(into canvas: borrowing EntryCanvas) {
    precondition(canvas.width == width && canvas.height == height && canvas.style == style)
    let channels = samples.bands
    guard let source = samples.bytes.baseAddress, let base = canvas.bytes.baseAddress else {
      return
    }
    let rowSamples = width * channels
    for y in 0..<height {
      let input = source.advanced(by: y * rowSamples).assumingMemoryBound(to: UInt8.self)
      let output = base.advanced(by: y * canvas.bytesPerRow)
      switch (style, channels) {
      case (.bgra32, 4): StylePixels.storePremultipliedBGRA(from: input, to: output, count: width)
      case (.bgr32, 3): StylePixels.storeBGRX(from: input, to: output, count: width)
      case (.gray8, 1): output.copyMemory(from: input, byteCount: width)
      default:
        for x in 0..<width {
          let sample = input + x * channels
          let pixel: RGBA =
            switch channels {
            case 4: RGBA(sample[0], sample[1], sample[2], sample[3])
            case 3: RGBA(sample[0], sample[1], sample[2])
            default: RGBA(sample[0], sample[0], sample[0])
            }
          style.store(pixel, at: output + x * style.bytesPerPixel)
        }
      }
    }
  }

  /// Reads bytes in `style` back as straight pixels (RGBA for `bgra32`, RGB for the
  /// opaque styles, grey for `gray8`): to look at what a table holds.
  public static func image(
    styledBytes bytes: UnsafeRawBufferPointer, bytesPerRow: Int, width: Int, height: Int,
    style: PixelStyle
  ) throws(VipsError) -> VipsImage {
    let bands = style == .bgra32 ? 4 : style == .gray8 ? 1 : 3
    var pixels: [UInt8] = []
    pixels.reserveCapacity(width * height * bands)
    for y in 0..<height {
      for x in 0..<width {
        let pixel = style.load(from: bytes.baseAddress! + y * bytesPerRow + x * style.bytesPerPixel)
        switch bands {
        case 4: pixels += [pixel.red, pixel.green, pixel.blue, pixel.alpha]
        case 3: pixels += [pixel.red, pixel.green, pixel.blue]
        default: pixels.append(pixel.red)
        }
      }
    }
    return try VipsImage(pixels: pixels, width: width, height: height, bands: bands)
  }

  /// This raster as straight pixels, as a table of its style would serve them.
  public func image() throws(VipsError) -> VipsImage {
    let (bytes, bytesPerRow) = bytes()
    let result = bytes.withUnsafeBytes { buffer in
      Result { () throws(VipsError) in
        try Self.image(
          styledBytes: buffer, bytesPerRow: bytesPerRow, width: width, height: height, style: style)
      }
    }
    return try result.get()
  }

  /// The style's bytes in a buffer of its own (rows padded as in a table), for tools
  /// that show what a table would hold.
  public func bytes() -> (bytes: [UInt8], bytesPerRow: Int) {
    let layout = EntryLayout(width: width, height: height, style: style)
    var buffer = [UInt8](repeating: 0, count: layout.bytesPerEntry)
    buffer.withUnsafeMutableBytes { raw in
      draw(
        into: EntryCanvas(
          bytes: raw, bytesPerRow: layout.bytesPerRow, width: width, height: height, style: style))
    }
    return (buffer, layout.bytesPerRow)
  }
}

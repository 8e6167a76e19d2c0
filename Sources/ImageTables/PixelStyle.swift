/// How one pixel is laid out in a table entry's bytes.
///
/// Rows are padded to a multiple of 64 bytes (see ``EntryLayout``). Byte layouts:
///
/// | style | bytes per pixel | layout in memory |
/// | --- | --- | --- |
/// | `bgra32` | 4 | B, G, R, A; colour premultiplied by alpha |
/// | `bgr32` | 4 | B, G, R, X; X unused, written as 255; opaque |
/// | `bgr555` | 2 | one little-endian 16-bit word: blue in bits 0-4, green 5-9, red 10-14, bit 15 unused; opaque |
/// | `gray8` | 1 | luminance |
public enum PixelStyle: String, Sendable, CaseIterable, Codable {
  case bgra32, bgr32, bgr555, gray8

  /// Bytes one pixel takes.
  public var bytesPerPixel: Int {
    switch self {
    case .bgra32, .bgr32: 4
    case .bgr555: 2
    case .gray8: 1
    }
  }

  /// Whether the style keeps alpha; the others are opaque and flattened onto a background.
  public var hasAlpha: Bool { self == .bgra32 }

  /// A stable number for the style in file headers.
  var code: UInt32 {
    switch self {
    case .bgra32: 1
    case .bgr32: 2
    case .bgr555: 3
    case .gray8: 4
    }
  }

  init?(code: UInt32) {
    guard let style = Self.allCases.first(where: { $0.code == code }) else { return nil }
    self = style
  }

  /// Writes `pixel` at `destination` in this style. Opaque styles drop alpha (flatten
  /// first); `gray8` takes the red channel as the luminance already computed.
  @inline(__always)
  public func store(_ pixel: RGBA, at destination: UnsafeMutableRawPointer) {
    switch self {
    case .bgra32:
      let alpha = UInt32(pixel.alpha)
      destination.storeBytes(of: Self.premultiply(pixel.blue, alpha), as: UInt8.self)
      destination.storeBytes(
        of: Self.premultiply(pixel.green, alpha), toByteOffset: 1, as: UInt8.self)
      destination.storeBytes(
        of: Self.premultiply(pixel.red, alpha), toByteOffset: 2, as: UInt8.self)
      destination.storeBytes(of: pixel.alpha, toByteOffset: 3, as: UInt8.self)
    case .bgr32:
      destination.storeBytes(of: pixel.blue, as: UInt8.self)
      destination.storeBytes(of: pixel.green, toByteOffset: 1, as: UInt8.self)
      destination.storeBytes(of: pixel.red, toByteOffset: 2, as: UInt8.self)
      destination.storeBytes(of: 255, toByteOffset: 3, as: UInt8.self)
    case .bgr555:
      let word =
        UInt16(Self.to5Bits(pixel.red)) << 10 | UInt16(Self.to5Bits(pixel.green)) << 5
        | UInt16(Self.to5Bits(pixel.blue))
      destination.storeBytes(of: UInt8(word & 0xff), as: UInt8.self)
      destination.storeBytes(of: UInt8(word >> 8), toByteOffset: 1, as: UInt8.self)
    case .gray8:
      destination.storeBytes(of: pixel.red, as: UInt8.self)
    }
  }

  /// Reads the pixel at `source` as straight RGBA: alpha divided out for `bgra32`,
  /// 5-bit channels widened to 8 bits for `bgr555`, grey repeated for `gray8`.
  @inline(__always)
  public func load(from source: UnsafeRawPointer) -> RGBA {
    switch self {
    case .bgra32:
      let alpha = source.load(fromByteOffset: 3, as: UInt8.self)
      return RGBA(
        Self.unpremultiply(source.load(fromByteOffset: 2, as: UInt8.self), alpha),
        Self.unpremultiply(source.load(fromByteOffset: 1, as: UInt8.self), alpha),
        Self.unpremultiply(source.load(as: UInt8.self), alpha), alpha)
    case .bgr32:
      return RGBA(
        source.load(fromByteOffset: 2, as: UInt8.self),
        source.load(fromByteOffset: 1, as: UInt8.self), source.load(as: UInt8.self))
    case .bgr555:
      let word =
        UInt16(source.load(as: UInt8.self)) | UInt16(source.load(fromByteOffset: 1, as: UInt8.self))
        << 8
      return RGBA(
        Self.from5Bits(UInt8((word >> 10) & 31)), Self.from5Bits(UInt8((word >> 5) & 31)),
        Self.from5Bits(UInt8(word & 31)))
    case .gray8:
      let grey = source.load(as: UInt8.self)
      return RGBA(grey, grey, grey)
    }
  }

  /// c x a / 255, rounded to nearest.
  @inline(__always)
  static func premultiply(_ channel: UInt8, _ alpha: UInt32) -> UInt8 {
    UInt8((UInt32(channel) * alpha + 127) / 255)
  }

  /// c x 255 / a, rounded to nearest; 0 where alpha is 0.
  @inline(__always)
  static func unpremultiply(_ channel: UInt8, _ alpha: UInt8) -> UInt8 {
    guard alpha > 0 else { return 0 }
    return UInt8(min(255, (UInt32(channel) * 255 + UInt32(alpha) / 2) / UInt32(alpha)))
  }

  /// 0...255 to 0...31, rounded to nearest.
  @inline(__always)
  static func to5Bits(_ value: UInt8) -> UInt8 { UInt8((UInt32(value) * 31 + 127) / 255) }

  /// 0...31 to 0...255, with the top bits repeated below so 31 becomes 255.
  @inline(__always)
  static func from5Bits(_ value: UInt8) -> UInt8 { value << 3 | value >> 2 }
}

/// How much memory decoding one image takes, estimated from its header before any pixel
/// is decoded, so that ``ImageLimits`` can refuse a decompression bomb the pixel limits let
/// through: a 4 KB progressive JPEG whose header says 8000x8000 made libjpeg take 384 MB
/// for its DCT coefficients before finding the data cut short, and a 25 KB GIF or a 4 KB
/// JPEG XL of 6000x6000 took 330 and 370 MB to render.
///
/// Two parts, each what the measured peak of `imgtool apply` grows by per pixel
/// (`Scripts/measure-decode-memory`):
/// - what the **loader** holds at once: a progressive JPEG every DCT coefficient of the
///   whole image at full size (2 bytes each, chroma as subsampled), whatever its
///   shrink-on-load; an interlaced PNG, a HEIF or a JPEG XL the whole image (JPEG XL
///   twice); a GIF one RGBA frame; a WebP its scaled decode. A baseline JPEG, a plain PNG
///   and a TIFF are read a few rows (or a strip) at a time, counted as nothing (a plain
///   PNG's compressed data, joined to be inflated in one call, is a copy of part of its
///   file: never more than the file, whatever its header says);
/// - the **decode** ImageTool keeps: the image at its shrink-on-load size in 8-bit sRGB
///   (alpha kept), computed into memory, and a copy of the loaded image when it is turned
///   upright.
///
/// ```swift
/// let header = try ImageHeader(file: "progressive.jpg")  // 8000x8000, 4:2:0
/// let memory = DecodeMemory(header: header, shrunkBy: 8).bytes  // 195 MB: 192 MB of coefficients
/// ```
public struct DecodeMemory: Sendable, Equatable {
  /// Bytes the loader holds at once.
  public let loaderBytes: Int
  /// Bytes of the decode kept in memory, at the shrink-on-load size.
  public let decodeBytes: Int
  /// What the loader holds, in words, when it holds more than a few rows.
  public let loaderHolds: String?

  /// Both parts.
  public var bytes: Int { loaderBytes + decodeBytes }

  /// The estimate for `header`'s first page, decoded with the loader shrinking by `factor`
  /// (``ShrinkOnLoad``).
  public init(header: ImageHeader, shrunkBy factor: Int) {
    let factor = max(1, factor)
    let pixels = header.width * header.height
    let shrunk = ceilDiv(header.width, factor) * ceilDiv(header.height, factor)
    let sampleBytes = max(1, header.bitsPerSample / 8)
    let size = "\(header.width)x\(header.height)"
    switch header.loader {
    case "jpegload" where header.isInterlaced:
      // 64 coefficients of 2 bytes a block of 8x8 samples: 2 bytes a sample, over
      // MCUs of 8x8 pixels when no component is subsampled, else (up to) 16x16.
      let quarters = Self.sampleQuarters(bands: header.bands, subsampling: header.chromaSubsampling)
      let mcu = quarters == 4 * header.bands ? 8 : 16
      let padded = roundUp(header.width, mcu) * roundUp(header.height, mcu)
      loaderBytes = padded * 2 * quarters / 4
      loaderHolds =
        "a progressive JPEG keeps every DCT coefficient of its \(size) pixels until its last scan"
    case "pngload" where header.isInterlaced:
      loaderBytes = pixels * header.bands * sampleBytes
      loaderHolds = "an interlaced PNG is held whole, \(size) pixels, until its last pass"
    case "gifload":
      loaderBytes = pixels * 4
      loaderHolds = "a GIF is drawn into an RGBA frame of its \(size) pixels"
    case "heifload":
      // libheif's HEVC decoder takes about 50 MB of its own, whatever the size.
      loaderBytes = pixels * header.bands * sampleBytes + (48 << 20)
      loaderHolds = "a HEIF image is decoded whole, \(size) pixels"
    case "jxlload":
      loaderBytes = pixels * header.bands * sampleBytes * 2
      loaderHolds = "a JPEG XL image is decoded whole, \(size) pixels, and copied once"
    case "webpload":
      loaderBytes = shrunk * 4
      loaderHolds = nil
    default:
      loaderBytes = 0
      loaderHolds = nil
    }
    // The decode: 8-bit sRGB, alpha kept (ImageTool's toSRGB), and the loaded image
    // before it is turned upright.
    let outputBands = 3 + (header.hasAlpha ? 1 : 0)
    let turned = header.orientation != 1 ? shrunk * header.bands * sampleBytes : 0
    decodeBytes = shrunk * outputBands + turned
  }

  /// Samples a JPEG has for every four luma samples, all components counted: 4 for grey,
  /// 12 for 4:4:4 colour, 6 for 4:2:0; 4 for each component when the subsampling is not
  /// known (the most there can be).
  static func sampleQuarters(bands: Int, subsampling: String?) -> Int {
    let chroma = max(0, min(bands, 3) - 1)
    let others = max(0, bands - 3)  // CMYK's K, never subsampled
    let parts = subsampling?.split(separator: ":").compactMap { Int($0) } ?? []
    // J:a:b, J = 4: a chroma samples across for 4 luma, b of them on the second row.
    guard parts.count == 3, parts[0] == 4, (1...4).contains(parts[1]) else {
      return 4 * bands
    }
    let perChroma = parts[2] == 0 ? parts[1] / 2 : parts[1]
    return 4 + chroma * max(1, perChroma) + 4 * others
  }
}

private func ceilDiv(_ value: Int, _ divisor: Int) -> Int { (value + divisor - 1) / divisor }

private func roundUp(_ value: Int, _ multiple: Int) -> Int { ceilDiv(value, multiple) * multiple }

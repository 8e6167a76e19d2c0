import CVips

/// What an image's header says about it, read without decoding a pixel.
///
/// ```swift
/// let header = try ImageHeader(file: "photo.jpg")
/// print(header.displayWidth, header.displayHeight, header.loader)  // 427 640 jpegload
/// ```
public struct ImageHeader: Sendable, Equatable {
  /// Width of one page as stored, in pixels.
  public let width: Int
  /// Height of one page as stored, in pixels.
  public let height: Int
  /// Samples per pixel, alpha included.
  public let bands: Int
  /// The numeric type of a sample.
  public let format: BandFormat
  /// The colour space libvips reads the bands in.
  public let interpretation: Interpretation
  /// The libvips loader that reads it, for example `jpegload` (for files and bytes alike).
  public let loader: String
  /// Pages (frames) in the file; 1 for most photos.
  public let pages: Int
  /// The EXIF orientation, 1 (upright) to 8.
  public let orientation: Int
  /// Whether the image has an alpha band.
  public let hasAlpha: Bool
  /// Whether an ICC colour profile is embedded.
  public let hasICCProfile: Bool
  /// Whether the image is stored in passes (a progressive JPEG's scans, an interlaced
  /// PNG's Adam7), so that its loader holds the whole image (a JPEG: every DCT
  /// coefficient) before its first row is final.
  public let isInterlaced: Bool
  /// A JPEG's chroma subsampling as libvips reads it (`4:2:0`, `4:4:4`); nil for other
  /// formats.
  public let chromaSubsampling: String?

  /// Reads the header of an image file; decodes no pixels and checks no limits.
  public init(file path: String) throws(VipsError) {
    self = try VipsImage(file: path, limits: nil).header
  }

  /// Reads the header of an image held in memory; decodes no pixels and checks no limits.
  public init(bytes: [UInt8]) throws(VipsError) {
    self = try VipsImage(bytes: bytes, limits: nil).header
  }

  init(image: UnsafeMutablePointer<CVips.VipsImage>) {
    width = Int(vips_image_get_width(image))
    height = Int(vips_image_get_page_height(image))
    bands = Int(vips_image_get_bands(image))
    format = BandFormat(vips_image_get_format(image))
    interpretation = Interpretation(vips_image_get_interpretation(image))
    var loaderName: UnsafePointer<CChar>? = nil
    if vips_image_get_typeof(image, "vips-loader") != 0,
      vips_image_get_string(image, "vips-loader", &loaderName) == 0, let loaderName
    {
      // The same loader reads files, buffers and sources: name it once.
      let name = String(cString: loaderName)
      loader = ["_buffer", "_source"].reduce(name) { name, suffix in
        name.hasSuffix(suffix) ? String(name.dropLast(suffix.count)) : name
      }
    } else {
      loader = "none"
    }
    pages = max(1, Int(vips_image_get_n_pages(image)))
    let stored = Int(vips_image_get_orientation(image))
    orientation = (1...8).contains(stored) ? stored : 1
    hasAlpha = vips_image_hasalpha(image) != 0
    hasICCProfile = vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0
    var interlaced: Int32 = 0
    isInterlaced =
      vips_image_get_typeof(image, "interlaced") != 0
      && vips_image_get_int(image, "interlaced", &interlaced) == 0 && interlaced != 0
    var subsampling: UnsafePointer<CChar>? = nil
    chromaSubsampling =
      vips_image_get_typeof(image, "jpeg-chroma-subsample") != 0
        && vips_image_get_string(image, "jpeg-chroma-subsample", &subsampling) == 0
      ? subsampling.map { String(cString: $0) } : nil
  }

  /// Width as shown, after the EXIF orientation is applied.
  public var displayWidth: Int { swapsSides ? height : width }
  /// Height as shown, after the EXIF orientation is applied.
  public var displayHeight: Int { swapsSides ? width : height }
  /// Bits in one sample.
  public var bitsPerSample: Int { format.bits }
  /// Pixels in the whole file, every page counted.
  public var pixelCount: Int { width * height * pages }
  /// Orientations 5 to 8 turn the image a quarter, swapping width and height.
  public var swapsSides: Bool { orientation >= 5 }
}

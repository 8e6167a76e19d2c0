import CVips

/// The numeric type of one sample (one band of one pixel).
public enum BandFormat: String, Sendable, CaseIterable {
  case uchar, char, ushort, short, uint, int, float, complex, double, dpcomplex

  init(_ format: VipsBandFormat) {
    self =
      switch format {
      case VIPS_FORMAT_UCHAR: .uchar
      case VIPS_FORMAT_CHAR: .char
      case VIPS_FORMAT_USHORT: .ushort
      case VIPS_FORMAT_SHORT: .short
      case VIPS_FORMAT_UINT: .uint
      case VIPS_FORMAT_INT: .int
      case VIPS_FORMAT_FLOAT: .float
      case VIPS_FORMAT_COMPLEX: .complex
      case VIPS_FORMAT_DOUBLE: .double
      default: .dpcomplex
      }
  }

  var vips: VipsBandFormat {
    switch self {
    case .uchar: VIPS_FORMAT_UCHAR
    case .char: VIPS_FORMAT_CHAR
    case .ushort: VIPS_FORMAT_USHORT
    case .short: VIPS_FORMAT_SHORT
    case .uint: VIPS_FORMAT_UINT
    case .int: VIPS_FORMAT_INT
    case .float: VIPS_FORMAT_FLOAT
    case .complex: VIPS_FORMAT_COMPLEX
    case .double: VIPS_FORMAT_DOUBLE
    case .dpcomplex: VIPS_FORMAT_DPCOMPLEX
    }
  }

  /// Bits in one sample: 8 for `uchar`, 16 for `ushort`, and so on.
  public var bits: Int {
    switch self {
    case .uchar, .char: 8
    case .ushort, .short: 16
    case .uint, .int, .float: 32
    case .complex, .double: 64
    case .dpcomplex: 128
    }
  }
}

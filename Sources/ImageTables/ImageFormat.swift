/// A size and look that entries are rendered at (FastImageCache's `FICImageFormat`).
///
/// A format belongs to a *family*: the formats a source photo is rendered into from
/// one decode. As in FastImageCache the family is optional: a format given none is a
/// family of its own, named as the format. Its pixel size is its size in points times
/// its scale. Format names are unique in a cache across every device class (a cache
/// refuses a configuration that repeats one, whichever devices each is for).
///
/// ```swift
/// let small = try ImageFormat(
///   name: "avatar.small", family: "avatar", width: 32, height: 32, scale: 2,
///   style: .bgra32, maximumCount: 500, pipeline: "fill(crop: attention) | circle")
/// small.pixelWidth  // 64
/// ```
public struct ImageFormat: Sendable, Hashable {
  /// Letters, digits, `.`, `_` and `-`; never a path.
  public let name: String
  /// The family the format belongs to; the same characters as a name. The format's own
  /// name when it was made with none.
  public let family: String
  /// Size in points.
  public let width: Int
  public let height: Int
  /// Pixels per point.
  public let scale: Int
  public let style: PixelStyle
  /// The most entries the table keeps; the least recently used unpinned entry makes room.
  /// Changing it keeps the entries a table holds (a smaller count evicts the least
  /// recently used, reported).
  public let maximumCount: Int
  /// The device classes the format is kept for.
  public let devices: Set<DeviceClass>
  public let protectionMode: ProtectionMode
  /// The processor pipeline that draws an entry, as its spec string (stored as data).
  public let pipeline: String

  /// Layout version of table files; part of every fingerprint.
  public static let tableLayoutVersion = 2

  public init(
    name: String, family: String? = nil, width: Int, height: Int, scale: Int = 1,
    style: PixelStyle = .bgra32, maximumCount: Int = 1000,
    devices: Set<DeviceClass> = DeviceClass.all, protectionMode: ProtectionMode = .none,
    pipeline: String = ""
  ) throws(ImageFormatError) {
    try Self.checkName(name, field: "name")
    let family = family ?? name
    try Self.checkName(family, field: "family")
    guard (1...16_384).contains(width), (1...16_384).contains(height) else {
      throw .invalidValue(
        format: name, field: "size", reason: "\(width)x\(height) points must be 1 to 16384 a side")
    }
    guard (1...8).contains(scale) else {
      throw .invalidValue(format: name, field: "scale", reason: "\(scale) must be 1 to 8")
    }
    guard width * scale <= 16_384, height * scale <= 16_384 else {
      throw .invalidValue(
        format: name, field: "size",
        reason: "\(width * scale)x\(height * scale) pixels is over 16384 a side")
    }
    guard (1...10_000_000).contains(maximumCount) else {
      throw .invalidValue(
        format: name, field: "maximumCount", reason: "\(maximumCount) must be 1 to 10000000")
    }
    guard !devices.isEmpty else {
      throw .invalidValue(format: name, field: "devices", reason: "name at least one device class")
    }
    self.name = name
    self.family = family
    self.width = width
    self.height = height
    self.scale = scale
    self.style = style
    self.maximumCount = maximumCount
    self.devices = devices
    self.protectionMode = protectionMode
    self.pipeline = pipeline
  }

  /// Bits each colour component takes in an entry (FastImageCache's
  /// `bitsPerComponent`): 5 for `bgr555`, else 8.
  public var bitsPerComponent: Int {
    switch style {
    case .bgra32, .bgr32, .gray8: 8
    case .bgr555: 5
    }
  }

  /// Whether entries hold one luminance component (FastImageCache's `isGrayscale`).
  public var isGrayscale: Bool {
    switch style {
    case .gray8: true
    case .bgra32, .bgr32, .bgr555: false
    }
  }

  public var pixelWidth: Int { width * scale }
  public var pixelHeight: Int { height * scale }

  /// The byte layout of this format's entries.
  public var layout: EntryLayout {
    EntryLayout(width: pixelWidth, height: pixelHeight, style: style)
  }

  /// Whether a cache configured for `device` keeps a table for this format.
  public func isKept(for device: DeviceClass) -> Bool { devices.contains(device) }

  /// The canonical description of the format: every field, the identifiers of its
  /// processors (each one's registered name, definition version and arguments, and
  /// what its own `identifier` adds, from the processing layer) and the table layout
  /// version. A change to a field that decides pixels invalidates the table; a change
  /// to ``FormatFingerprint/settingsFields`` alone (`maximumCount`, `devices`,
  /// `protectionMode`) keeps its entries.
  public func fingerprint(processorIdentifiers: [String] = []) -> FormatFingerprint {
    FormatFingerprint(fields: [
      ("layoutVersion", String(Self.tableLayoutVersion)),
      ("name", name), ("family", family),
      ("width", String(width)), ("height", String(height)), ("scale", String(scale)),
      ("style", style.rawValue), ("maximumCount", String(maximumCount)),
      ("devices", devices.sorted().map(\.rawValue).joined(separator: ",")),
      ("protectionMode", protectionMode.rawValue), ("pipeline", pipeline),
      ("processors", processorIdentifiers.joined(separator: " | ")),
    ])
  }

  /// Whether `text` is a valid format or family name.
  public static func isValidName(_ text: String) -> Bool {
    (1...128).contains(text.utf8.count) && text != "." && text != ".."
      && text.unicodeScalars.allSatisfy { scalar in
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", ".", "_", "-": true
        default: false
        }
      }
  }

  private static func checkName(_ text: String, field: String) throws(ImageFormatError) {
    guard isValidName(text) else {
      throw .invalidName(
        field: field, value: text,
        reason: "use 1 to 128 letters, digits, '.', '_' and '-' (never a path)")
    }
  }
}

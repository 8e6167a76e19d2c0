/// A class of device a format is kept for (FastImageCache's `FICImageFormatDevices`).
///
/// A cache is configured for one device class and keeps no table for a format that
/// does not list it. Any lowercase name works; the common ones are predefined.
public struct DeviceClass: RawRepresentable, Hashable, Sendable, Codable, Comparable,
  ExpressibleByStringLiteral, CustomStringConvertible
{
  public let rawValue: String

  public init(rawValue: String) { self.rawValue = rawValue }
  public init(stringLiteral value: String) { rawValue = value }

  public static let phone: DeviceClass = "phone"
  public static let tablet: DeviceClass = "tablet"
  public static let desktop: DeviceClass = "desktop"
  public static let server: DeviceClass = "server"

  /// Every predefined class: the default for a format that names none.
  public static let all: Set<DeviceClass> = [.phone, .tablet, .desktop, .server]

  public var description: String { rawValue }
  public static func < (left: DeviceClass, right: DeviceClass) -> Bool {
    left.rawValue < right.rawValue
  }
}

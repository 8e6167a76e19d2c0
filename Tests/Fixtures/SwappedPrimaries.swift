import CLCMS2
import Vips

/// A made photo for colour management: its ICC profile swaps the red and blue
/// primaries, so what it shows once managed differs plainly from its stored pixels.
public enum SwappedPrimaries {
  /// The skin colour the attention measure scores highest, in sRGB.
  public static let skin: [UInt8] = [224, 172, 145]

  /// An RGB profile (gamma 2.2, D65) whose red and blue primaries are sRGB's blue and
  /// red: device (r, g, b) shows as about sRGB (b, g, r). Built with lcms2.
  public static func profile() -> [UInt8] {
    var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
    var primaries = cmsCIExyYTRIPLE(
      Red: cmsCIExyY(x: 0.15, y: 0.06, Y: 1), Green: cmsCIExyY(x: 0.30, y: 0.60, Y: 1),
      Blue: cmsCIExyY(x: 0.64, y: 0.33, Y: 1))
    guard let gamma = cmsBuildGamma(nil, 2.2) else { fatalError("lcms2: no tone curve") }
    defer { cmsFreeToneCurve(gamma) }
    var curves: [OpaquePointer?] = [gamma, gamma, gamma]
    guard let profile = cmsCreateRGBProfile(&white, &primaries, &curves) else {
      fatalError("lcms2: no profile")
    }
    defer { cmsCloseProfile(profile) }
    var size: cmsUInt32Number = 0
    _ = cmsSaveProfileToMem(profile, nil, &size)
    var bytes = [UInt8](repeating: 0, count: Int(size))
    guard cmsSaveProfileToMem(profile, &bytes, &size) != 0 else { fatalError("lcms2: not saved") }
    return bytes
  }

  /// How a made photo's alpha varies.
  public enum Alpha: Sendable, CaseIterable {
    case none
    /// Opaque everywhere.
    case opaque
    /// Squares of 25 pixels at 255, 200, 128 and 64 in turn.
    case squares
  }

  /// 200x100 with the profile: the left half is skin once managed (bluish as stored),
  /// the right half skin as stored (bluish once managed), with a fourth band as `alpha`
  /// says.
  public static func twoHalves(alpha: Alpha = .none) throws -> VipsImage {
    let swapped: [UInt8] = [skin[2], skin[1], skin[0]]
    let levels: [UInt8] = [255, 200, 128, 64]
    var pixels: [UInt8] = []
    for y in 0..<100 {
      for x in 0..<200 {
        pixels += x < 100 ? swapped : skin
        switch alpha {
        case .none: break
        case .opaque: pixels.append(255)
        case .squares: pixels.append(levels[(x / 25 + y / 25) % 4])
        }
      }
    }
    return try VipsImage(pixels: pixels, width: 200, height: 100, bands: alpha == .none ? 3 : 4)
      .embeddingICCProfile(profile()).materialized()
  }
}

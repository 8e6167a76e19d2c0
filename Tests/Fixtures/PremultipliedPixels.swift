import Vips

/// An image's samples as 8-bit sRGB RGBA, colour premultiplied by alpha (as a `bgra32`
/// table stores them), to compare renders with libvips's images channel by channel.
public struct PremultipliedPixels: Sendable {
  public let width: Int
  public let height: Int
  /// R, G, B, A per pixel, colour premultiplied by alpha.
  public let samples: [UInt8]

  public init(width: Int, height: Int, samples: [UInt8]) {
    self.width = width
    self.height = height
    self.samples = samples
  }

  /// `image` in sRGB with an alpha band, each colour sample times alpha / 255, rounded.
  public init(_ image: VipsImage) throws {
    let rgba = try image.toSRGB().withAlpha().computePixels()
    width = rgba.width
    height = rgba.height
    var samples = [UInt8](repeating: 0, count: width * height * 4)
    for index in 0..<(width * height) {
      let alpha = UInt32(rgba.bytes[4 * index + 3])
      for channel in 0..<3 {
        samples[4 * index + channel] = UInt8(
          (UInt32(rgba.bytes[4 * index + channel]) * alpha + 127) / 255)
      }
      samples[4 * index + 3] = UInt8(alpha)
    }
    self.samples = samples
  }

  /// The mean absolute difference of each channel (R, G, B, A), in levels; 255 in each
  /// when the sizes differ.
  public func meanDifference(to other: PremultipliedPixels) -> [Double] {
    guard width == other.width, height == other.height else { return [255, 255, 255, 255] }
    var sums = [0.0, 0.0, 0.0, 0.0]
    for index in samples.indices {
      sums[index % 4] += abs(Double(samples[index]) - Double(other.samples[index]))
    }
    return sums.map { $0 / Double(width * height) }
  }

  /// The largest absolute difference of any one sample, in levels; 255 when the sizes
  /// differ.
  public func maxDifference(to other: PremultipliedPixels) -> Int {
    guard width == other.width, height == other.height else { return 255 }
    return zip(samples, other.samples).map { abs(Int($0) - Int($1)) }.max() ?? 0
  }

  /// The turns that keep an image's width and height.
  public enum Turn: CaseIterable, Sendable { case none, mirrored, flipped, halfTurn }

  /// The image turned by `turn`.
  public func turned(_ turn: Turn) -> PremultipliedPixels {
    var out = samples
    for y in 0..<height {
      for x in 0..<width {
        let (sx, sy) =
          switch turn {
          case .none: (x, y)
          case .mirrored: (width - 1 - x, y)
          case .flipped: (x, height - 1 - y)
          case .halfTurn: (width - 1 - x, height - 1 - y)
          }
        for channel in 0..<4 {
          out[4 * (y * width + x) + channel] = samples[4 * (sy * width + sx) + channel]
        }
      }
    }
    return PremultipliedPixels(width: width, height: height, samples: out)
  }
}

import Foundation
import Locking
import Vips

/// Makes the fixtures that are not kept in the repository, each once per test process,
/// from the kept photos, with libvips.
enum FixtureGenerator {
  /// The path of one made fixture, once it is made.
  private final class Slot: Sendable {
    let path = Lock<String?>(nil)
  }

  /// One slot per fixture asked for so far in this process, by name.
  private static let slots = Lock<[String: Slot]>([:])

  static func path(of name: String, recipe: Recipe) throws -> String {
    let slot = slots.withLock { slots in
      if let slot = slots[name] { return slot }
      let slot = Slot()
      slots[name] = slot
      return slot
    }
    // Each fixture is made once; tests asking for it meanwhile wait for the finished
    // file, while other fixtures are made beside it.
    return try slot.path.withLock { path in
      if let path { return path }
      let folder = try ScratchFolder.makeFolder(named: "fixtures")
      let made = folder.appendingPathComponent(name).path
      do {
        try make(recipe, at: made)
      } catch {
        throw FixtureError.generationFailed(name: name, reason: "\(error)")
      }
      path = made
      return made
    }
  }

  /// The kept photo as 8-bit sRGB without a profile (its profile applied).
  private static func upright(_ name: String) throws -> VipsImage {
    try VipsImage(file: Fixtures.photo(name)).toSRGB()
  }

  private static func make(_ recipe: Recipe, at path: String) throws {
    switch recipe {
    case .cmykJPEG:
      let rgb = try upright("coffee.png")
      let cmyk = try VipsImage(
        pixels: naiveCMYK(rgb.writePixels()), width: rgb.width, height: rgb.height, bands: 4,
        interpretation: .cmyk)
      try cmyk.write(to: path, quality: 95)
    case .paletteGIF:
      try upright("chelsea.png").save(to: path, options: "bitdepth=7")
    case .tiffLZW:
      // Straight from the file, so the ICC profile goes along.
      try VipsImage(file: Fixtures.photo("hubble.jpg")).save(to: path, options: "compression=lzw")
    case .webp:
      try upright("coffee.png").write(to: path, quality: 90)
    case .heic:
      try upright("chelsea.png").save(to: path, options: "Q=80,compression=hevc")
    case .avif:
      // Effort 0: the AV1 encoder's fastest (seconds faster than its default here).
      try upright("chelsea.png").save(to: path, options: "Q=80,compression=av1,effort=0")
    case .progressiveJPEG:
      try upright("retina.jpg").save(to: path, options: "Q=90,interlace")
    case .sixteenBitPNG:
      try upright("astronaut.png").linear([257], [0]).cast(to: .ushort).tagged(as: .rgb16)
        .write(to: path)
    case .greyJPEG:
      try upright("retina.jpg").toGreyscale().write(to: path, quality: 95)
    case .greyAlphaPNG:
      let cat = try upright("chelsea.png")
      let mask = try roundMask(width: cat.width, height: cat.height)
      try cat.toGreyscale().joiningBands(mask).tagged(as: .bw).write(to: path)
    case .roundMaskPNG:
      let cat = try upright("chelsea.png")
      try cat.masked(by: roundMask(width: cat.width, height: cat.height)).write(to: path)
    case .onePixelPNG:
      try VipsImage(pixels: [200, 100, 50], width: 1, height: 1, bands: 3).write(to: path)
    case .orientation(let orientation):
      let cat = try upright("chelsea.png")
      let stored = try Orientation.stored(cat, showingUprightWith: orientation)
      try stored.settingOrientation(orientation).write(to: path, quality: 95)
    case .truncatedJPEG:
      let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.photo("hubble.jpg")))
      try bytes.prefix(60_000).write(to: URL(fileURLWithPath: path))
    }
  }

  /// A mask as large as the picture whose corners are rounded by half its height.
  private static func roundMask(width: Int, height: Int) throws -> VipsImage {
    try VipsImage.roundedRectangleMask(
      width: width, height: height, radius: Double(min(width, height)) / 2)
  }

  /// The textbook conversion without a profile: K is what no channel reaches, and C, M,
  /// Y what each channel misses of the rest.
  private static func naiveCMYK(_ rgb: [UInt8]) -> [UInt8] {
    var cmyk = [UInt8](repeating: 0, count: rgb.count / 3 * 4)
    for pixel in 0..<(rgb.count / 3) {
      let brightest = Int(max(rgb[pixel * 3], rgb[pixel * 3 + 1], rgb[pixel * 3 + 2]))
      cmyk[pixel * 4 + 3] = UInt8(255 - brightest)
      guard brightest > 0 else { continue }
      for band in 0..<3 {
        // (1 - c - k) / (1 - k) with c and k as fractions is (brightest - c) / brightest.
        let ink = Double(brightest - Int(rgb[pixel * 3 + band])) / Double(brightest)
        cmyk[pixel * 4 + band] = UInt8((ink * 255).rounded())
      }
    }
    return cmyk
  }
}

import TestFixtures
import Testing

@testable import Vips

/// The AVX2 kernels of the in-memory resizes against the scalar loops they replace (the
/// fallback, forced on this thread with `ResampleKernels.scalar`): byte for byte, float
/// for float, on edges, widths that are not multiples of the vector width, 1 to 4 bands.
/// `InMemoryResizeTests` checks the default kernels against libvips's own resize.
@Suite("Resample kernels")
struct ResampleKernelTests {
  /// Pixels that make the kernel overshoot (hard 0/255 edges) and noise, with an alpha
  /// band (the last) that runs through 0, faint values and 255.
  static func pixels(width: Int, height: Int, bands: Int, seed: UInt32) -> [UInt8] {
    var state = seed &* 2_654_435_761 | 1
    var samples: [UInt8] = []
    samples.reserveCapacity(width * height * bands)
    for y in 0..<height {
      for x in 0..<width {
        for band in 0..<bands {
          state = state &* 1_664_525 &+ 1_013_904_223
          let noise = UInt8(truncatingIfNeeded: state >> 24)
          if bands > 1, band == bands - 1 {
            samples.append([0, 1, 2, 255, noise, 128][(x + 2 * y) % 6])
          } else {
            samples.append((x / 3 + y / 2 + band) % 3 == 0 ? noise : ((x + y) % 2 == 0 ? 0 : 255))
          }
        }
      }
    }
    return samples
  }

  /// The scales: a kernel alone (shrinks under 2), a box shrink then a kernel, one axis
  /// kept, and the smallest (clamped to one pixel).
  static let scales: [(Double, Double)] = [
    (0.5, 0.5), (0.33, 0.71), (0.13, 0.9), (0.07, 0.07), (1, 0.4), (0.4, 1), (0.001, 0.001),
  ]

  /// The whole resize and windows of it: its 1-pixel corner, 2-pixel edges, a middle.
  static func windows(width: Int, height: Int) -> [PixelRect?] {
    var windows: [PixelRect?] = [nil, PixelRect(x: width - 1, y: height - 1, width: 1, height: 1)]
    if width >= 2 { windows.append(PixelRect(x: 0, y: 0, width: 2, height: height)) }
    if height >= 2 {
      windows.append(PixelRect(x: 0, y: height - 2, width: width, height: 2))
    }
    if width >= 3, height >= 3 {
      windows.append(PixelRect(x: 1, y: 1, width: width - 2, height: height - 2))
    }
    return windows
  }

  /// `body`'s result and the paths it chose on this thread: how many times the AVX2
  /// kernels and how many times the scalar loops.
  static func counting<T>(_ body: () throws -> T) rethrows -> (T, vector: Int, scalar: Int) {
    let before = ResampleKernels.choicesOnThisThread
    let result = try body()
    let after = ResampleKernels.choicesOnThisThread
    return (result, after.vector - before.vector, after.scalar - before.scalar)
  }

  /// The default kernels and the scalar loops of `resize`, each checked to have run (or
  /// the comparison would be of one path with itself): the scalar side chose no kernel, and
  /// wherever the resize had a pass to choose for, the scalar side chose the scalar loops
  /// and the default side, on a machine with AVX2, a kernel. (A resize with nothing to
  /// resample, such as one row shrunk to none, chooses nothing on either side.)
  static func bothPaths<T>(_ label: String, _ resize: () throws -> T) throws -> (
    fast: T, scalar: T
  ) {
    let (fast, vector, loops) = try counting(resize)
    let (scalar, scalarVector, scalarLoops) = try ResampleKernels.scalar { try counting(resize) }
    #expect(scalarVector == 0, "\(label): the scalar side ran \(scalarVector) kernels")
    if vector + loops > 0 {
      #expect(scalarLoops > 0, "\(label): the scalar side chose no scalar loop")
      if ResampleKernels.vectorKernelsAvailable {
        #expect(vector > 0, "\(label): the default side never ran a kernel")
      }
    }
    return (fast, scalar)
  }

  /// Each in-memory resize of `image` at these scales, by the default kernels and by the
  /// scalar loops, the same bytes; `label` names the case.
  static func expectKernelsAgree(_ image: VipsImage, _ h: Double, _ v: Double, _ label: String)
    throws
  {
    let premultiplied = image.bands == 2 || image.bands == 4
    let whole = try #require(try image.resizedInMemory(scale: h, verticalScale: v), "\(label)")
    for window in windows(width: whole.width, height: whole.height) {
      let resize = { () throws -> [UInt8]? in
        if let window {
          return try image.resizedInMemory(scale: h, verticalScale: v, cropping: window)?
            .writePixels()
        }
        return try image.resizedInMemory(scale: h, verticalScale: v)?.writePixels()
      }
      let paths = try Self.bothPaths("\(label) \(String(describing: window))", resize)
      let fast = try #require(paths.fast, "\(label) \(String(describing: window))")
      #expect(fast == paths.scalar, "\(label) window \(String(describing: window))")
      guard premultiplied else { continue }
      let alpha = { () throws -> [UInt8]? in
        if let window {
          return try image.resizedPremultipliedInMemory(
            scale: h, verticalScale: v, cropping: window)?.writePixels()
        }
        return try image.resizedPremultipliedInMemory(scale: h, verticalScale: v)?.writePixels()
      }
      let alphaPaths = try Self.bothPaths("\(label) premultiplied", alpha)
      let fastAlpha = try #require(alphaPaths.fast, "\(label) premultiplied")
      #expect(
        fastAlpha == alphaPaths.scalar,
        "\(label) premultiplied window \(String(describing: window))")
    }
    if premultiplied {
      // The float miniature (attention's): the same floats, bit for bit.
      let floatPaths = try Self.bothPaths("\(label) float") {
        try image.resizedPremultipliedFloatInMemory(scale: h, verticalScale: v)
      }
      let floats = try #require(floatPaths.fast)
      #expect(try floats.writePixels() == floatPaths.scalar?.writePixels(), "\(label) float")
    }
  }

  @Test(
    "the vector kernels give the scalar loops' bytes for 1 to 4 bands",
    arguments: [1, 2, 3, 4])
  func kernelsAgreeOnEdgesAndOddWidths(_ bands: Int) async throws {
    try await ComputeExecutor.run {
      for width in [1, 2, 3, 5, 15, 16, 17, 31, 33, 47, 65, 129] {
        for height in [1, 2, 3, 17, 40] {
          let image = try VipsImage(
            pixels: Self.pixels(
              width: width, height: height, bands: bands, seed: UInt32(width * height)),
            width: width, height: height, bands: bands
          ).materialized()
          for (h, v) in Self.scales {
            try Self.expectKernelsAgree(image, h, v, "\(width)x\(height)x\(bands) at \(h)x\(v)")
          }
        }
      }
    }
  }

  /// Rows longer than the vertical kernels' 32-sample blocks, and boxes wide enough to
  /// read many groups of taps.
  @Test func kernelsAgreeOnWideRowsAndLargeBoxes() async throws {
    try await ComputeExecutor.run {
      for bands in [1, 2, 3, 4] {
        let (width, height) = (1037, 211)
        let image = try VipsImage(
          pixels: Self.pixels(width: width, height: height, bands: bands, seed: 7),
          width: width, height: height, bands: bands
        ).materialized()
        for (h, v) in [(0.26, 0.26), (0.011, 0.03), (64.0 / 211, 64.0 / 211), (0.9, 0.13)] {
          try Self.expectKernelsAgree(image, h, v, "\(width)x\(height)x\(bands) at \(h)x\(v)")
        }
      }
    }
  }

  @Test("the vector kernels give the scalar loops' bytes on every photo", arguments: Fixture.photos)
  func kernelsAgreeOnPhotos(_ fixture: Fixture) async throws {
    try await ComputeExecutor.run {
      var image = try InMemoryResizeTests.decoded(fixture)
      if !image.hasAlpha {
        image = try image.joiningBands(image.extractingBands(1)).materialized()
      }
      let short = Double(min(image.width, image.height))
      for (h, v) in [
        (256 / short, 256 / short), (64 / short, 64 / short), (0.9, 0.13),
        (32 / Double(image.width), 32 / Double(image.height)),
      ] where h <= 1 && v <= 1 {
        try Self.expectKernelsAgree(image, h, v, "\(fixture) at \(h)x\(v)")
      }
    }
  }

  /// The vertical box kernel sums in 16 bits, so a box of more than 257 rows (255 x 257
  /// fits, 255 x 258 does not) must go to the scalar loops: a white image 1100 rows tall
  /// shrunk to one or two rows stays white, as libvips's own resize makes it.
  @Test func aBoxTallerThanTheKernelsSumsHoldIsStillExact() async throws {
    try await ComputeExecutor.run {
      for bands in [1, 3] {
        for (height, v) in [(1100, 0.001), (1100, 0.002), (516, 1.0 / 258), (514, 1.0 / 257)] {
          let white = [UInt8](repeating: 255, count: 32 * height * bands)
          let image = try VipsImage(pixels: white, width: 32, height: height, bands: bands)
            .materialized()
          let label = "32x\(height)x\(bands) at 0.5x\(v)"
          let ours = try #require(
            try image.resizedInMemory(scale: 0.5, verticalScale: v), "\(label)")
          let bytes = try ours.writePixels()
          #expect(!bytes.isEmpty && bytes.allSatisfy { $0 == 255 }, "\(label): \(bytes.prefix(8))")
          #expect(
            try bytes == image.resizedByLibvips(scale: 0.5, verticalScale: v).writePixels(),
            "\(label)")
          try Self.expectKernelsAgree(image, 0.5, v, label)
        }
      }
    }
  }

  /// The setting is the calling thread's: the scalar loops while `scalar` runs, then the
  /// kernels again (on this machine, if it has AVX2).
  @Test func theScalarSettingIsUndoneAfterwards() throws {
    let available = ResampleKernels.vectorKernelsAvailable
    ResampleKernels.scalar {
      #expect(ResampleKernels.vectorKernelsOnThisThread == false)
      ResampleKernels.scalar { #expect(ResampleKernels.vectorKernelsOnThisThread == false) }
      #expect(ResampleKernels.vectorKernelsOnThisThread == false)
    }
    #expect(ResampleKernels.vectorKernelsOnThisThread == available)
  }
}

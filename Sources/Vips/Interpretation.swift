import CVips

/// How libvips reads the bands of an image (its colour space), in libvips's own words.
public enum Interpretation: String, Sendable, CaseIterable {
  case multiband, bw = "b-w", histogram, xyz, lab, cmyk, labq, rgb, cmc, lch, labs, srgb, yxy
  case fourier, rgb16, grey16, matrix, scrgb, hsv

  init(_ interpretation: VipsInterpretation) {
    self = Self.table.first { $0.0 == interpretation }?.1 ?? .multiband
  }

  var vips: VipsInterpretation {
    Self.table.first { $0.1 == self }?.0 ?? VIPS_INTERPRETATION_MULTIBAND
  }

  private static let table: [(VipsInterpretation, Interpretation)] = [
    (VIPS_INTERPRETATION_B_W, .bw), (VIPS_INTERPRETATION_HISTOGRAM, .histogram),
    (VIPS_INTERPRETATION_XYZ, .xyz), (VIPS_INTERPRETATION_LAB, .lab),
    (VIPS_INTERPRETATION_CMYK, .cmyk), (VIPS_INTERPRETATION_LABQ, .labq),
    (VIPS_INTERPRETATION_RGB, .rgb), (VIPS_INTERPRETATION_CMC, .cmc),
    (VIPS_INTERPRETATION_LCH, .lch), (VIPS_INTERPRETATION_LABS, .labs),
    (VIPS_INTERPRETATION_sRGB, .srgb), (VIPS_INTERPRETATION_YXY, .yxy),
    (VIPS_INTERPRETATION_FOURIER, .fourier), (VIPS_INTERPRETATION_RGB16, .rgb16),
    (VIPS_INTERPRETATION_GREY16, .grey16), (VIPS_INTERPRETATION_MATRIX, .matrix),
    (VIPS_INTERPRETATION_scRGB, .scrgb), (VIPS_INTERPRETATION_HSV, .hsv),
    (VIPS_INTERPRETATION_MULTIBAND, .multiband),
  ]
}

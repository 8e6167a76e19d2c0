import CVips

/// Which part of an image a crop keeps (libvips's `VipsInteresting`).
public enum Interesting: String, Sendable, CaseIterable {
  /// Crop nothing: the image keeps its aspect ratio inside the box.
  case none
  /// Keep the middle.
  case centre
  /// Keep the part with the most detail (entropy).
  case entropy
  /// Keep what draws the eye: skin tones, saturated colour, edges.
  case attention

  var vips: VipsInteresting {
    switch self {
    case .none: VIPS_INTERESTING_NONE
    case .centre: VIPS_INTERESTING_CENTRE
    case .entropy: VIPS_INTERESTING_ENTROPY
    case .attention: VIPS_INTERESTING_ATTENTION
    }
  }
}

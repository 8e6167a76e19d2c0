import CVips

/// Which way a thumbnail may change the size of an image (libvips's `VipsSize`).
public enum SizeMode: String, Sendable, CaseIterable {
  /// Shrink or enlarge to the box.
  case both
  /// Only enlarge; an image larger than the box keeps its size.
  case up
  /// Only shrink; an image smaller than the box keeps its size.
  case down
  /// Fill the box exactly, changing the aspect ratio.
  case force

  var vips: VipsSize {
    switch self {
    case .both: VIPS_SIZE_BOTH
    case .up: VIPS_SIZE_UP
    case .down: VIPS_SIZE_DOWN
    case .force: VIPS_SIZE_FORCE
    }
  }
}

import Vips

/// The eight EXIF orientations: how the stored pixels relate to the picture shown.
enum Orientation {
  /// The pixels a camera stores for `upright` when it tags them with `orientation`:
  /// showing them as the tag says (turning and mirroring) gives `upright` back.
  static func stored(_ upright: VipsImage, showingUprightWith orientation: Int) throws
    -> VipsImage
  {
    let width = upright.width
    let height = upright.height
    let bands = upright.bands
    let pixels = try upright.writePixels()
    let swapsSides = orientation >= 5
    let storedWidth = swapsSides ? height : width
    let storedHeight = swapsSides ? width : height
    // For each stored pixel (x, y), the upright pixel it holds.
    let source: (Int, Int) -> (Int, Int) =
      switch orientation {
      case 2: { x, y in (width - 1 - x, y) }  // mirrored left to right
      case 3: { x, y in (width - 1 - x, height - 1 - y) }  // upside down
      case 4: { x, y in (x, height - 1 - y) }  // mirrored top to bottom
      case 5: { x, y in (y, x) }  // transposed
      case 6: { x, y in (width - 1 - y, x) }  // turned a quarter anticlockwise
      case 7: { x, y in (width - 1 - y, height - 1 - x) }  // transversed
      case 8: { x, y in (y, height - 1 - x) }  // turned a quarter clockwise
      default: { x, y in (x, y) }
      }
    var stored = [UInt8](repeating: 0, count: pixels.count)
    for y in 0..<storedHeight {
      for x in 0..<storedWidth {
        let (sourceX, sourceY) = source(x, y)
        let from = (sourceY * width + sourceX) * bands
        let to = (y * storedWidth + x) * bands
        for band in 0..<bands { stored[to + band] = pixels[from + band] }
      }
    }
    return try VipsImage(
      pixels: stored, width: storedWidth, height: storedHeight, bands: bands,
      interpretation: upright.interpretation)
  }
}

/// How the page shows its photo: fitted to the view (the default, and after paging), or
/// at a zoom, one of ``levels`` (1 is 1:1, an entry pixel on a device pixel), panned.
/// Sizes are the view's in points and the photo's in pixels; `pixelsPerPoint` is the
/// display's scale.
struct PhotoViewport: Equatable {
  /// Where the photo is drawn: its top left corner in the view, and points per pixel.
  struct Placement: Equatable {
    var x: Double
    var y: Double
    var scale: Double
    var width: Double
    var height: Double
  }

  /// The zooms `+` and `-` step through, in device pixels per photo pixel.
  static let levels: [Double] = [
    1 / 16, 1 / 12, 1 / 8, 1 / 6, 1 / 4, 1 / 3, 1 / 2, 2 / 3, 1, 3 / 2, 2, 3, 4, 6, 8, 12, 16,
  ]

  /// Device pixels per photo pixel; nil: fitted to the view.
  private(set) var zoom: Double?
  /// The photo's point (in its pixels) at the view's centre when zoomed; nil: its centre.
  private(set) var centre: (x: Double, y: Double)?

  static func == (a: PhotoViewport, b: PhotoViewport) -> Bool {
    a.zoom == b.zoom && a.centre?.x == b.centre?.x && a.centre?.y == b.centre?.y
  }

  var isFitted: Bool { zoom == nil }

  /// Back to fitted (paging to another photo does this).
  mutating func fit() {
    zoom = nil
    centre = nil
  }

  /// Where the photo `photoWidth` by `photoHeight` pixels is drawn in a view `width` by
  /// `height` points. Fitted, it is scaled (up or down) to the largest size that fits,
  /// centred; zoomed, `centre` is at the view's centre, kept inside the photo so that
  /// no more of the view than needed is blank. The corner is on a whole device pixel.
  func placement(
    photoWidth: Int, photoHeight: Int, width: Double, height: Double, pixelsPerPoint: Double
  ) -> Placement {
    let (pw, ph) = (Double(max(1, photoWidth)), Double(max(1, photoHeight)))
    let scale = zoom.map { $0 / pixelsPerPoint } ?? min(width / pw, height / ph)
    let (drawnWidth, drawnHeight) = (pw * scale, ph * scale)
    let centre = clampedCentre(
      photoWidth: pw, photoHeight: ph, scale: scale, width: width, height: height)
    func corner(_ view: Double, _ drawn: Double, _ centre: Double) -> Double {
      let x = drawn <= view ? (view - drawn) / 2 : view / 2 - centre * scale
      return (x * pixelsPerPoint).rounded(.down) / pixelsPerPoint
    }
    return Placement(
      x: corner(width, drawnWidth, centre.x), y: corner(height, drawnHeight, centre.y),
      scale: scale, width: drawnWidth, height: drawnHeight)
  }

  /// `centre` (or the photo's middle) moved inside the photo as far as needed for its
  /// edges to stay at or beyond the view's; in a dimension the photo does not fill, its
  /// middle.
  private func clampedCentre(
    photoWidth pw: Double, photoHeight ph: Double, scale: Double, width: Double, height: Double
  ) -> (x: Double, y: Double) {
    func clamp(_ value: Double?, _ size: Double, _ view: Double) -> Double {
      let half = view / 2 / scale
      guard size * scale > view else { return size / 2 }
      return min(max(value ?? size / 2, half), size - half)
    }
    return (clamp(centre?.x, pw, width), clamp(centre?.y, ph, height))
  }

  /// Zooms to `zoom` device pixels per pixel, keeping the photo's point under
  /// (`x`, `y`) in the view where it is (the view's centre when not given).
  mutating func zoom(
    to zoom: Double, aroundX x: Double? = nil, y: Double? = nil, photoWidth: Int,
    photoHeight: Int, width: Double, height: Double, pixelsPerPoint: Double
  ) {
    let before = placement(
      photoWidth: photoWidth, photoHeight: photoHeight, width: width, height: height,
      pixelsPerPoint: pixelsPerPoint)
    let (px, py) = (x ?? width / 2, y ?? height / 2)
    // The photo's point under the pointer, and where it must stay.
    let point = ((px - before.x) / before.scale, (py - before.y) / before.scale)
    let scale = zoom / pixelsPerPoint
    self.zoom = zoom
    centre = (point.0 - (px - width / 2) / scale, point.1 - (py - height / 2) / scale)
    let kept = clampedCentre(
      photoWidth: Double(max(1, photoWidth)), photoHeight: Double(max(1, photoHeight)),
      scale: scale, width: width, height: height)
    centre = kept
  }

  /// The zoom shown now, in device pixels per pixel (fitted: the fit's).
  func currentZoom(
    photoWidth: Int, photoHeight: Int, width: Double, height: Double, pixelsPerPoint: Double
  ) -> Double {
    zoom
      ?? placement(
        photoWidth: photoWidth, photoHeight: photoHeight, width: width, height: height,
        pixelsPerPoint: pixelsPerPoint
      ).scale * pixelsPerPoint
  }

  /// The next level above `zoom` (`+`), or below it (`-`); the last level at the ends.
  static func step(from zoom: Double, up: Bool) -> Double {
    let epsilon = 1e-9
    return up
      ? levels.first { $0 > zoom + epsilon } ?? levels.last!
      : levels.last { $0 < zoom - epsilon } ?? levels.first!
  }

  /// Moves the photo by (`dx`, `dy`) points, from where it stood at `from` (the centre
  /// when a drag began): a drag to the right shows more of the photo's left.
  mutating func pan(
    from start: (x: Double, y: Double), dx: Double, dy: Double, photoWidth: Int,
    photoHeight: Int, width: Double, height: Double, pixelsPerPoint: Double
  ) {
    guard let zoom else { return }
    let scale = zoom / pixelsPerPoint
    centre = (start.x - dx / scale, start.y - dy / scale)
    centre = clampedCentre(
      photoWidth: Double(max(1, photoWidth)), photoHeight: Double(max(1, photoHeight)),
      scale: scale, width: width, height: height)
  }

  /// The centre a pan starts from: where the view's middle is on the photo now.
  func panStart(
    photoWidth: Int, photoHeight: Int, width: Double, height: Double, pixelsPerPoint: Double
  ) -> (x: Double, y: Double) {
    let placed = placement(
      photoWidth: photoWidth, photoHeight: photoHeight, width: width, height: height,
      pixelsPerPoint: pixelsPerPoint)
    return ((width / 2 - placed.x) / placed.scale, (height / 2 - placed.y) / placed.scale)
  }

  /// Which way a click at (`x`, `y`) pages: on the photo's left half (of what the view
  /// shows of it) back, on its right half forward; off the photo, nowhere.
  static func side(ofX x: Double, y: Double, placement: Placement, width: Double, height: Double)
    -> ViewerModel.Move?
  {
    let left = max(0, placement.x)
    let right = min(width, placement.x + placement.width)
    let top = max(0, placement.y)
    let bottom = min(height, placement.y + placement.height)
    guard x >= left, x < right, y >= top, y < bottom else { return nil }
    return x < (left + right) / 2 ? .previous : .next
  }
}

import CGtk
import ImageTables
import PhotoModels

/// What the viewer draws with Cairo: the page with its photo fitted, and the scrubber
/// strip with every thumbnail and the selection where the models put them. The
/// colours are `imgtool browse`'s.
@MainActor
enum ViewerDrawing {
  /// Fills the page `width` by `height` points with black and draws `photo` where
  /// `viewport` places it (fitted to the page, or zoomed and panned), scaled by Cairo
  /// from the entry's own bytes, on a display of `pixelsPerPoint`.
  static func drawPage(
    _ cr: OpaquePointer, photo: Bitmap?, viewport: PhotoViewport, width: Int, height: Int,
    pixelsPerPoint: Int
  ) {
    cairo_set_source_rgb(cr, 0, 0, 0)
    cairo_paint(cr)
    guard let photo, photo.width > 0, photo.height > 0 else { return }
    let placed = viewport.placement(
      photoWidth: photo.width, photoHeight: photo.height, width: Double(width),
      height: Double(height), pixelsPerPoint: Double(max(1, pixelsPerPoint)))
    draw(photo, in: cr, x: placed.x, y: placed.y, scale: placed.scale)
  }

  /// Draws the scrubber view: its layout's container strip with a thumbnail in every
  /// slot, then the selected photo's thumbnail larger, framed in white, at `selection`
  /// (where the model presents it now, part way along its animation while it runs; nil
  /// when it is hidden).
  static func drawScrubber(_ cr: OpaquePointer, scrubber: PhotoScrubber, selection: Rect?) {
    cairo_set_source_rgb(cr, 0, 0, 0)
    cairo_paint(cr)
    let layout = scrubber.layout
    guard !layout.isContainerHidden else { return }
    let container = layout.containerFrame
    fill(cr, Rect(container), red: 40, green: 40, blue: 44)
    for slot in scrubber.slots {
      var frame = slot.frame
      frame.x += container.x
      frame.y += container.y
      drawCell(cr, slot.thumbnail, in: Rect(frame))
    }
    guard let selection else { return }
    fill(
      cr,
      Rect(
        x: selection.x - 1, y: selection.y - 1, width: selection.width + 2,
        height: selection.height + 2), red: 255, green: 255, blue: 255)
    drawCell(cr, scrubber.selectionThumbnail, in: selection)
  }

  /// A thumbnail filling `rect` (scaled to cover it, the middle kept), or a grey cell
  /// while it is not ready.
  static func drawCell(_ cr: OpaquePointer, _ thumbnail: Bitmap?, in rect: Rect) {
    guard let thumbnail, thumbnail.width > 0, thumbnail.height > 0 else {
      fill(cr, rect, red: 90, green: 90, blue: 90)
      return
    }
    let scale = max(
      rect.width / Double(thumbnail.width), rect.height / Double(thumbnail.height))
    cairo_save(cr)
    cairo_rectangle(cr, rect.x, rect.y, rect.width, rect.height)
    cairo_clip(cr)
    draw(
      thumbnail, in: cr,
      x: rect.x + (rect.width - Double(thumbnail.width) * scale) / 2,
      y: rect.y + (rect.height - Double(thumbnail.height) * scale) / 2,
      scale: scale)
    cairo_restore(cr)
  }

  /// Paints `bitmap` with its top left corner at (`x`, `y`), `scale` times its size,
  /// straight from its bytes.
  static func draw(_ bitmap: Bitmap, in cr: OpaquePointer, x: Double, y: Double, scale: Double) {
    guard let surface = BitmapSurface.make(bitmap) else { return }
    defer { cairo_surface_destroy(surface) }
    cairo_save(cr)
    cairo_translate(cr, x, y)
    cairo_scale(cr, scale, scale)
    cairo_set_source_surface(cr, surface, 0, 0)
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
    cairo_rectangle(cr, 0, 0, Double(bitmap.width), Double(bitmap.height))
    cairo_fill(cr)
    cairo_restore(cr)
  }

  static func fill(_ cr: OpaquePointer, _ rect: Rect, red: Int, green: Int, blue: Int) {
    cairo_set_source_rgb(cr, Double(red) / 255, Double(green) / 255, Double(blue) / 255)
    cairo_rectangle(cr, rect.x, rect.y, rect.width, rect.height)
    cairo_fill(cr)
  }
}

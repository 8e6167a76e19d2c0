import CGtk
import CGtkShim
import PhotoModels

/// The viewer's GTK window: the page, a row with the caption and the counter, and the
/// scrubber strip across the bottom. Keys page, clicks and drags on the strip scrub;
/// the title is the browser's counter and caption.
@MainActor
final class ViewerWindow {
  let model: ViewerModel
  let window: UnsafeMutablePointer<GtkWidget>
  private let page: UnsafeMutablePointer<GtkWidget>
  private let caption: UnsafeMutablePointer<GtkWidget>
  private let counter: UnsafeMutablePointer<GtkWidget>
  private let strip: UnsafeMutablePointer<GtkWidget>
  /// Quit when the window closes.
  private let loop: OpaquePointer
  /// Where the drag on the strip began, in the strip's coordinates.
  private var dragStartX = 0.0
  private var ticking = false

  init(model: ViewerModel, loop: OpaquePointer) {
    self.model = model
    self.loop = loop
    window = gtk_window_new()
    page = gtk_drawing_area_new()
    caption = gtk_label_new(nil)
    counter = gtk_label_new(nil)
    strip = gtk_drawing_area_new()
    build()
  }

  /// Shows the window and the first photo.
  func present() {
    model.didChange = { [weak self] in self?.update() }
    model.start()
    update()
    gtk_window_present(cast(window))
  }

  private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

  private static func from(_ data: UnsafeMutableRawPointer?) -> ViewerWindow {
    Unmanaged<ViewerWindow>.fromOpaque(data!).takeUnretainedValue()
  }

  private func build() {
    gtk_window_set_default_size(cast(window), 720, 640)
    // A header bar shows the title (counter and caption) on every desktop.
    gtk_window_set_titlebar(cast(window), gtk_header_bar_new())
    let column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
    gtk_window_set_child(cast(window), column)

    gtk_widget_set_vexpand(page, 1)
    gtk_widget_set_hexpand(page, 1)
    gtk_drawing_area_set_draw_func(
      cast(page),
      { area, cr, width, height, data in
        MainActor.assumeIsolated {
          let view = ViewerWindow.from(data)
          let browser = view.model.browser
          ViewerDrawing.drawPage(
            cr!, photo: browser.displayImage(at: browser.currentIndex), width: Int(width),
            height: Int(height), pixelsPerPoint: Int(gtk_widget_get_scale_factor(cast(area!))))
        }
      }, context, nil)
    gtk_box_append(cast(column), page)

    let row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0)!
    gtk_widget_set_margin_start(row, 10)
    gtk_widget_set_margin_end(row, 10)
    gtk_widget_set_margin_top(row, 10)
    gtk_widget_set_margin_bottom(row, 10)
    gtk_widget_set_hexpand(caption, 1)
    gtk_label_set_xalign(cast(caption), 0)
    gtk_label_set_ellipsize(cast(caption), PANGO_ELLIPSIZE_MIDDLE)
    gtk_box_append(cast(row), caption)
    gtk_box_append(cast(row), counter)
    gtk_box_append(cast(column), row)

    gtk_drawing_area_set_content_height(cast(strip), Int32(ViewerModel.scrubberHeight))
    gtk_drawing_area_set_draw_func(
      cast(strip),
      { _, cr, _, _, data in
        MainActor.assumeIsolated {
          let view = ViewerWindow.from(data)
          ViewerDrawing.drawScrubber(
            cr!, scrubber: view.model.scrubber,
            selection: view.model.scrubber.presentedSelectionFrame)
        }
      }, context, nil)
    viewer_connect_resize(
      cast(strip),
      { _, width, _, data in
        MainActor.assumeIsolated { ViewerWindow.from(data).model.resizeScrubber(width: Int(width)) }
      }, context)
    gtk_box_append(cast(column), strip)

    // A click is a drag that does not move: both go through the scrubber's touch mapping.
    let drag = gtk_gesture_drag_new()!
    viewer_connect_point(
      drag, "drag-begin",
      { _, x, _, data in
        MainActor.assumeIsolated {
          let view = ViewerWindow.from(data)
          view.dragStartX = x
          view.model.touchScrubber(atX: x)
        }
      }, context)
    viewer_connect_point(
      drag, "drag-update",
      { _, offsetX, _, data in
        MainActor.assumeIsolated {
          let view = ViewerWindow.from(data)
          view.model.touchScrubber(atX: view.dragStartX + offsetX)
        }
      }, context)
    gtk_widget_add_controller(strip, drag)

    let keys = gtk_event_controller_key_new()!
    viewer_connect_key_pressed(
      keys,
      { _, keyval, _, _, data in
        MainActor.assumeIsolated {
          guard let move = ViewerWindow.move(forKey: keyval) else { return 0 }
          ViewerWindow.from(data).model.page(move)
          return 1
        }
      }, context)
    gtk_widget_add_controller(window, keys)

    // When the system runs short of memory, the browser lets go of what it can.
    viewer_connect_low_memory(
      { _, _, data in MainActor.assumeIsolated { ViewerWindow.from(data).model.releaseMemory() } },
      context)

    viewer_connect_instance(
      window, "close-request",
      { _, data in
        MainActor.assumeIsolated { g_main_loop_quit(ViewerWindow.from(data).loop) }
        return 0
      }, context)
  }

  /// The page a key asks for: Right, Page Down and Space forward; Left and Page Up
  /// back; Home and End to the ends.
  nonisolated static func move(forKey keyval: UInt32) -> ViewerModel.Move? {
    switch Int32(bitPattern: keyval) {
    case GDK_KEY_Right, GDK_KEY_KP_Right, GDK_KEY_Page_Down, GDK_KEY_KP_Page_Down, GDK_KEY_space:
      .next
    case GDK_KEY_Left, GDK_KEY_KP_Left, GDK_KEY_Page_Up, GDK_KEY_KP_Page_Up:
      .previous
    case GDK_KEY_Home, GDK_KEY_KP_Home: .first
    case GDK_KEY_End, GDK_KEY_KP_End: .last
    default: nil
    }
  }

  /// Shows what the models say now: title, caption, counter, page and strip.
  private func update() {
    gtk_window_set_title(cast(window), model.title)
    gtk_label_set_text(cast(caption), model.browser.caption ?? "")
    gtk_label_set_text(cast(counter), model.browser.counterText ?? "")
    gtk_widget_queue_draw(page)
    gtk_widget_queue_draw(strip)
    animateSelection()
  }

  /// Redraws the strip on every frame while the model says the selection moves.
  private func animateSelection() {
    guard !ticking, model.selectionMoves else { return }
    ticking = true
    gtk_widget_add_tick_callback(
      strip,
      { widget, _, data in
        MainActor.assumeIsolated {
          let view = ViewerWindow.from(data)
          gtk_widget_queue_draw(widget)
          guard view.model.selectionMoves else {
            view.ticking = false
            return 0
          }
          return 1
        }
      }, context, nil)
  }
}

/// A GObject pointer as another type in its hierarchy (GTK's cast macros).
@inline(__always)
func cast<From, To>(_ pointer: UnsafeMutablePointer<From>) -> UnsafeMutablePointer<To> {
  UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: To.self)
}

/// A GObject pointer as an opaque type in its hierarchy (GtkBox, GtkLabel, ...).
@inline(__always)
func cast<From>(_ pointer: UnsafeMutablePointer<From>) -> OpaquePointer {
  OpaquePointer(pointer)
}

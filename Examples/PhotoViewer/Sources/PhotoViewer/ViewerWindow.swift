import CGtk
import CGtkShim
import PhotoModels

/// The viewer's GTK window: the page (with the keys over it on `?`), a status line
/// while a render runs, and the scrubber strip across the bottom. The title (in the
/// header bar) is the browser's counter and caption, shown once. Keys page, zoom and
/// go fullscreen; the wheel and a click on the photo's halves page, Ctrl+wheel zooms,
/// a drag moves a zoomed photo; clicks and drags on the strip's thumbnails scrub. A
/// timer reads the tables again, so photos a render commits show as they land.
@MainActor
final class ViewerWindow {
  let model: ViewerModel
  let window: UnsafeMutablePointer<GtkWidget>
  private let page: UnsafeMutablePointer<GtkWidget>
  private let help: UnsafeMutablePointer<GtkWidget>
  private let status: UnsafeMutablePointer<GtkWidget>
  private let strip: UnsafeMutablePointer<GtkWidget>
  /// Quit when the window closes.
  private let loop: OpaquePointer
  /// Where the drag on the strip began, in the strip's coordinates; nil when it began
  /// off the thumbnails (it then does nothing).
  private var stripDragStartX: Double?
  /// Where a press on the page began, and the zoomed photo's centre then.
  private var pageDragStart: (x: Double, y: Double, centre: (x: Double, y: Double))?
  private var pageDragMoved = false
  /// The pointer over the page, for Ctrl+wheel zooms around it.
  private var pointer: (x: Double, y: Double)?
  private var ticking = false
  /// How often the tables are read again, in milliseconds.
  static let pollInterval: UInt32 = 200
  /// A press that moves less than this (points) is a click.
  static let clickSlop = 4.0

  init(model: ViewerModel, loop: OpaquePointer) {
    self.model = model
    self.loop = loop
    window = gtk_window_new()
    page = gtk_drawing_area_new()
    help = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)
    status = gtk_label_new(nil)
    strip = gtk_drawing_area_new()
    build()
  }

  /// Shows the window and the first photo, and starts reading the tables again.
  func present() {
    model.didChange = { [weak self] in self?.update() }
    model.start()
    update()
    gtk_window_present(cast(window))
    g_timeout_add(
      Self.pollInterval,
      { data in
        MainActor.assumeIsolated { _ = ViewerWindow.from(data).model.refresh() }
        return 1
      }, context)
  }

  private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

  private static func from(_ data: UnsafeMutableRawPointer?) -> ViewerWindow {
    Unmanaged<ViewerWindow>.fromOpaque(data!).takeUnretainedValue()
  }

  /// The page's size in points and the display's scale.
  private var pageGeometry: (width: Double, height: Double, pixelsPerPoint: Double) {
    (
      Double(gtk_widget_get_width(page)), Double(gtk_widget_get_height(page)),
      Double(max(1, gtk_widget_get_scale_factor(page)))
    )
  }

  private func build() {
    gtk_window_set_default_size(cast(window), 720, 640)
    // A header bar shows the title (counter and caption) on every desktop.
    gtk_window_set_titlebar(cast(window), gtk_header_bar_new())
    let column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
    gtk_window_set_child(cast(window), column)

    let overlay = gtk_overlay_new()!
    gtk_widget_set_vexpand(overlay, 1)
    gtk_widget_set_hexpand(overlay, 1)
    gtk_drawing_area_set_draw_func(
      cast(page),
      { area, cr, width, height, data in
        MainActor.assumeIsolated {
          let model = ViewerWindow.from(data).model
          ViewerDrawing.drawPage(
            cr!, photo: model.currentImage, viewport: model.viewport, width: Int(width),
            height: Int(height), pixelsPerPoint: Int(gtk_widget_get_scale_factor(cast(area!))))
        }
      }, context, nil)
    gtk_overlay_set_child(cast(overlay), page)
    buildHelp()
    gtk_overlay_add_overlay(cast(overlay), help)
    gtk_box_append(cast(column), overlay)
    buildPageInput()

    gtk_widget_set_margin_start(status, 10)
    gtk_widget_set_margin_end(status, 10)
    gtk_widget_set_margin_top(status, 6)
    gtk_widget_set_margin_bottom(status, 6)
    gtk_label_set_xalign(cast(status), 0)
    gtk_label_set_ellipsize(cast(status), PANGO_ELLIPSIZE_END)
    gtk_box_append(cast(column), status)

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
    buildStripInput()

    let keys = gtk_event_controller_key_new()!
    viewer_connect_key_pressed(
      keys,
      { _, keyval, _, _, data in
        MainActor.assumeIsolated {
          guard let action = ViewerKeys.action(forKey: keyval) else { return 0 }
          ViewerWindow.from(data).perform(action)
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
        MainActor.assumeIsolated { ViewerWindow.from(data).quit() }
        return 0
      }, context)
  }

  /// The keys, over the page, hidden until `?`.
  private func buildHelp() {
    gtk_widget_add_css_class(help, "osd")
    gtk_widget_set_halign(help, GTK_ALIGN_CENTER)
    gtk_widget_set_valign(help, GTK_ALIGN_CENTER)
    let label = gtk_label_new("Keys\n\n" + ViewerKeys.helpText)!
    gtk_widget_add_css_class(label, "monospace")
    for side in [gtk_widget_set_margin_start, gtk_widget_set_margin_end] { side(label, 24) }
    for side in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom] { side(label, 18) }
    gtk_box_append(cast(help), label)
    gtk_widget_set_visible(help, 0)
  }

  /// The page's clicks, drags and wheel.
  private func buildPageInput() {
    // A press that does not move is a click on a half of the photo; one that moves
    // pans a zoomed photo.
    let drag = gtk_gesture_drag_new()!
    viewer_connect_point(
      UnsafeMutableRawPointer(drag), "drag-begin",
      { _, x, y, data in
        MainActor.assumeIsolated { ViewerWindow.from(data).pagePressed(x: x, y: y) }
      }, context)
    viewer_connect_point(
      UnsafeMutableRawPointer(drag), "drag-update",
      { _, dx, dy, data in
        MainActor.assumeIsolated { ViewerWindow.from(data).pageDragged(dx: dx, dy: dy) }
      }, context)
    viewer_connect_point(
      UnsafeMutableRawPointer(drag), "drag-end",
      { _, dx, dy, data in
        MainActor.assumeIsolated { ViewerWindow.from(data).pageReleased(dx: dx, dy: dy) }
      }, context)
    gtk_widget_add_controller(page, drag)

    let motion = gtk_event_controller_motion_new()!
    viewer_connect_point(
      UnsafeMutableRawPointer(motion), "motion",
      { _, x, y, data in
        MainActor.assumeIsolated { ViewerWindow.from(data).pointer = (x, y) }
      }, context)
    gtk_widget_add_controller(page, motion)

    let scroll = gtk_event_controller_scroll_new(
      GtkEventControllerScrollFlags(
        GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES.rawValue
          | GTK_EVENT_CONTROLLER_SCROLL_DISCRETE.rawValue))!
    viewer_connect_scroll(
      scroll,
      { controller, dx, dy, data in
        MainActor.assumeIsolated {
          let state = gtk_event_controller_get_current_event_state(controller)
          let control = state.rawValue & GDK_CONTROL_MASK.rawValue != 0
          ViewerWindow.from(data).scrolled(dx: dx, dy: dy, control: control)
          return 1
        }
      }, context)
    gtk_widget_add_controller(page, scroll)
  }

  /// The strip's clicks and drags, through the scrubber's touch mapping; a press off
  /// its thumbnails does nothing.
  private func buildStripInput() {
    let drag = gtk_gesture_drag_new()!
    viewer_connect_point(
      UnsafeMutableRawPointer(drag), "drag-begin",
      { _, x, y, data in
        MainActor.assumeIsolated {
          let view = ViewerWindow.from(data)
          guard view.model.scrubberHit(x: x, y: y) else {
            view.stripDragStartX = nil
            return
          }
          view.stripDragStartX = x
          view.model.touchScrubber(atX: x)
        }
      }, context)
    viewer_connect_point(
      UnsafeMutableRawPointer(drag), "drag-update",
      { _, offsetX, _, data in
        MainActor.assumeIsolated {
          let view = ViewerWindow.from(data)
          guard let start = view.stripDragStartX else { return }
          view.model.touchScrubber(atX: start + offsetX)
        }
      }, context)
    gtk_widget_add_controller(strip, drag)
  }

  private func pagePressed(x: Double, y: Double) {
    let geometry = pageGeometry
    let centre =
      model.currentImage.map {
        model.viewport.panStart(
          photoWidth: $0.width, photoHeight: $0.height, width: geometry.width,
          height: geometry.height, pixelsPerPoint: geometry.pixelsPerPoint)
      } ?? (0, 0)
    pageDragStart = (x, y, centre)
    pageDragMoved = false
  }

  private func pageDragged(dx: Double, dy: Double) {
    guard let start = pageDragStart, let photo = model.currentImage else { return }
    if abs(dx) >= Self.clickSlop || abs(dy) >= Self.clickSlop { pageDragMoved = true }
    guard pageDragMoved, !model.viewport.isFitted else { return }
    let geometry = pageGeometry
    model.viewport.pan(
      from: start.centre, dx: dx, dy: dy, photoWidth: photo.width, photoHeight: photo.height,
      width: geometry.width, height: geometry.height, pixelsPerPoint: geometry.pixelsPerPoint)
    gtk_widget_queue_draw(page)
  }

  private func pageReleased(dx: Double, dy: Double) {
    defer { pageDragStart = nil }
    guard let start = pageDragStart, !pageDragMoved, abs(dx) < Self.clickSlop,
      abs(dy) < Self.clickSlop, let photo = model.currentImage
    else { return }
    let geometry = pageGeometry
    let placed = model.viewport.placement(
      photoWidth: photo.width, photoHeight: photo.height, width: geometry.width,
      height: geometry.height, pixelsPerPoint: geometry.pixelsPerPoint)
    guard
      let move = PhotoViewport.side(
        ofX: start.x, y: start.y, placement: placed, width: geometry.width,
        height: geometry.height)
    else { return }
    model.page(move)
  }

  private func scrolled(dx: Double, dy: Double, control: Bool) {
    let delta = dy != 0 ? dy : dx
    guard delta != 0 else { return }
    if control {
      let geometry = pageGeometry
      model.zoom(
        in: delta < 0, aroundX: pointer?.x, y: pointer?.y, width: geometry.width,
        height: geometry.height, pixelsPerPoint: geometry.pixelsPerPoint)
    } else {
      model.page(delta > 0 ? .next : .previous)
    }
  }

  private func perform(_ action: ViewerAction) {
    let geometry = pageGeometry
    switch action {
    case .page(let move): model.page(move)
    case .zoomIn, .zoomOut:
      model.zoom(
        in: action == .zoomIn, width: geometry.width, height: geometry.height,
        pixelsPerPoint: geometry.pixelsPerPoint)
    case .actualSize:
      model.zoom(
        to: 1, width: geometry.width, height: geometry.height,
        pixelsPerPoint: geometry.pixelsPerPoint)
    case .fit: model.fit()
    case .toggleFullscreen:
      if gtk_window_is_fullscreen(cast(window)) != 0 {
        gtk_window_unfullscreen(cast(window))
      } else {
        gtk_window_fullscreen(cast(window))
      }
    case .leave:
      if gtk_widget_get_visible(help) != 0 {
        gtk_widget_set_visible(help, 0)
      } else if gtk_window_is_fullscreen(cast(window)) != 0 {
        gtk_window_unfullscreen(cast(window))
      } else {
        gtk_window_close(cast(window))
      }
    case .toggleHelp:
      gtk_widget_set_visible(help, gtk_widget_get_visible(help) != 0 ? 0 : 1)
    }
  }

  /// The window closes: the folder's render stops (what it committed stays), the loop ends.
  private func quit() {
    model.stopRender()
    g_main_loop_quit(loop)
  }

  /// Shows what the models say now: title, status, page and strip.
  private func update() {
    gtk_window_set_title(cast(window), model.title)
    let text = model.status
    gtk_label_set_text(cast(status), text ?? "")
    gtk_widget_set_visible(status, text == nil ? 0 : 1)
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

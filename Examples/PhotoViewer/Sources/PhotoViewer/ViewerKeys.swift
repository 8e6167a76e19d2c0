import CGtk

/// What a key asks the viewer to do.
enum ViewerAction: Equatable {
  case page(ViewerModel.Move)
  case zoomIn, zoomOut, actualSize, fit
  case toggleFullscreen
  /// Escape and q: close the keys, else leave fullscreen, else quit.
  case leave
  case toggleHelp
}

/// The viewer's keys, and the list `?` and `--help` show.
enum ViewerKeys {
  static func action(forKey keyval: UInt32) -> ViewerAction? {
    switch Int32(bitPattern: keyval) {
    case GDK_KEY_Right, GDK_KEY_KP_Right, GDK_KEY_Page_Down, GDK_KEY_KP_Page_Down, GDK_KEY_space:
      .page(.next)
    case GDK_KEY_Left, GDK_KEY_KP_Left, GDK_KEY_Page_Up, GDK_KEY_KP_Page_Up, GDK_KEY_BackSpace:
      .page(.previous)
    case GDK_KEY_Home, GDK_KEY_KP_Home: .page(.first)
    case GDK_KEY_End, GDK_KEY_KP_End: .page(.last)
    case GDK_KEY_plus, GDK_KEY_equal, GDK_KEY_KP_Add: .zoomIn
    case GDK_KEY_minus, GDK_KEY_KP_Subtract: .zoomOut
    case GDK_KEY_1, GDK_KEY_KP_1: .actualSize
    case GDK_KEY_0, GDK_KEY_KP_0: .fit
    case GDK_KEY_F11, GDK_KEY_f, GDK_KEY_F: .toggleFullscreen
    case GDK_KEY_Escape, GDK_KEY_q, GDK_KEY_Q: .leave
    case GDK_KEY_question: .toggleHelp
    default: nil
    }
  }

  /// One line per key, as `?` shows them.
  static let helpText = """
    Right, Page Down, Space      next photo
    Left, Page Up, Backspace     previous photo
    Home, End                    first, last photo
    wheel down, up               next, previous photo
    click on the photo           its right half: next; its left half: previous
    click or drag on the strip   the photo under the pointer
    +, -                         zoom in, out
    Ctrl+wheel                   zoom in, out around the pointer
    1                            1:1, a photo pixel on each screen pixel
    0                            fit the photo to the window
    drag a zoomed photo          move it
    F11, f                       fullscreen, and back
    Escape, q                    leave fullscreen, else quit
    ?                            show or hide these keys
    """
}

/// Why the viewer cannot start, with what to do about it.
enum ViewerError: Error, CustomStringConvertible {
  /// The command line is wrong; `reason` says how.
  case usage(String)
  /// The cache folder does not exist.
  case noCache(path: String)
  /// The manifest has no such family, or the cache has no table for it.
  case noFamily(name: String, families: [String])
  /// The family's tables hold no photos.
  case emptyFamily(name: String, cache: String)
  /// GTK could not open a display.
  case noDisplay(String?)
  /// Dispatch gave no descriptor for its main queue, so GLib's loop cannot run the
  /// main actor.
  case noMainQueue

  var description: String {
    switch self {
    case .usage(let reason):
      "\(reason)\nusage: photo-viewer --cache DIR --family NAME [--manifest FILE]"
    case .noCache(let path):
      "no cache at '\(path)': render one first, e.g. "
        + "imgtool render --family photo --cache \(path) PHOTOS"
    case .noFamily(let name, let families):
      "no family '\(name)' in the manifest"
        + (families.isEmpty ? "" : "; it has \(families.joined(separator: ", "))")
    case .emptyFamily(let name, let cache):
      "family '\(name)' in '\(cache)' holds no photos: render it first with "
        + "imgtool render --family \(name) --cache \(cache) PHOTOS"
    case .noDisplay(let display):
      "cannot open a display (DISPLAY is \(display.map { "'\($0)'" } ?? "not set")); "
        + "run on a desktop, or under Xvfb"
    case .noMainQueue:
      "cannot run Swift's main actor from GLib's main loop: Dispatch gave no descriptor "
        + "for its main queue (is this libdispatch the one Swift on Linux ships?)"
    }
  }

  /// 64 for a wrong command line (as imgtool), else 1.
  var exitStatus: Int32 {
    if case .usage = self { return 64 }
    return 1
  }
}

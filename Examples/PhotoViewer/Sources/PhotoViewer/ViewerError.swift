/// Why the viewer cannot start, with what to do about it.
enum ViewerError: Error, CustomStringConvertible {
  /// The command line is wrong; `reason` says how.
  case usage(String)
  /// The cache folder does not exist.
  case noCache(path: String)
  /// The folder of photos to open does not exist, or is not a folder.
  case noFolder(path: String)
  /// The cache asked for is the folder of photos, or inside it: the render would write
  /// its tables among the photos.
  case cacheInFolder(cache: String, folder: String)
  /// The cache asked for holds photos and no tables: it is somebody's folder of photos.
  case cacheHoldsPhotos(cache: String)
  /// The manifest has no such family, or the cache has no table for it.
  case noFamily(name: String, families: [String])
  /// The family's tables are not in the cache.
  case emptyFamily(name: String, cache: String)
  /// A folder needs imgtool to render it, and there is none where the viewer looked.
  case noImgtool(looked: [String])
  /// GTK could not open a display.
  case noDisplay(String?)
  /// Dispatch gave no descriptor for its main queue, so GLib's loop cannot run the
  /// main actor.
  case noMainQueue

  var description: String {
    switch self {
    case .usage(let reason):
      "\(reason)\n\(ViewerOptions.usage)\n(photo-viewer --help says more, and lists the keys)"
    case .noCache(let path):
      "no cache at '\(path)': render one first, e.g. "
        + "imgtool render --family photo --cache \(path) PHOTOS, or open a folder of photos: "
        + "photo-viewer PHOTOS"
    case .noFolder(let path):
      "no folder of photos at '\(path)'"
    case .cacheInFolder(let cache, let folder):
      "the cache '\(cache)' is inside the folder of photos '\(folder)': the viewer never "
        + "writes into a folder it is asked to read; give --cache a folder outside it, or "
        + "leave --cache out (the cache is then under $XDG_CACHE_HOME/imgtool)"
    case .cacheHoldsPhotos(let cache):
      "'\(cache)' holds photos, not a cache's tables: the viewer never writes into a folder "
        + "of photos; to show them, open it as a folder: photo-viewer \(cache)"
    case .noFamily(let name, let families):
      "no family '\(name)' in the manifest"
        + (families.isEmpty ? "" : "; it has \(families.joined(separator: ", "))")
    case .emptyFamily(let name, let cache):
      "family '\(name)' in '\(cache)' holds no photos: render it first with "
        + "imgtool render --family \(name) --cache \(cache) PHOTOS"
    case .noImgtool(let looked):
      "cannot find imgtool to render the folder (looked at \(looked.joined(separator: ", "))): "
        + "build it (swift build --product imgtool), put it on PATH, or set IMGTOOL to its path"
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

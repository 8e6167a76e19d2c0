import Foundation
import ImageTables

/// What the viewer shows: a cache an `imgtool render` made, or a folder of photos it
/// renders in the background (with `imgtool render`, into a cache of its own) and shows
/// as they land. Either way the viewer opens the cache read-only: it never writes, so it
/// never creates a file in a folder it is asked to read.
enum ViewerSource: Equatable {
  case cache(URL)
  case folder(URL, cache: URL)

  /// The cache the viewer reads.
  var cache: URL {
    switch self {
    case .cache(let cache), .folder(_, let cache): cache
    }
  }

  /// Extensions taken as photos when telling a folder of photos from a cache.
  static let photoExtensions: Set<String> = [
    "jpg", "jpeg", "png", "webp", "gif", "tif", "tiff", "heic", "heif", "avif", "jxl",
  ]

  /// The source `options` ask for (a folder, `--cache`, or both); `environment` gives
  /// `XDG_CACHE_HOME` and `HOME`.
  ///
  /// - A folder: it must exist; its cache is `--cache` (which must be neither the
  ///   folder nor inside it, nor a folder that holds photos and no tables) or
  ///   ``defaultCache(folder:environment:)``.
  /// - `--cache DIR` alone: the cache must exist; if it holds photos and no tables at
  ///   all (the folder of photos given as the cache, the natural mistake), it is opened
  ///   as the folder it is, rendered into a cache of its own, and `note` says so.
  static func resolve(
    _ options: ViewerOptions, environment: [String: String],
    note: (String) -> Void = { _ in }
  ) throws(ViewerError) -> ViewerSource {
    if let folder = options.folder {
      let photos = folderURL(folder)
      guard isFolder(photos) else { throw .noFolder(path: folder) }
      guard let given = options.cache else {
        return .folder(photos, cache: defaultCache(folder: photos, environment: environment))
      }
      let cache = folderURL(given)
      guard !contains(photos, cache) else {
        throw .cacheInFolder(cache: given, folder: folder)
      }
      if holdsPhotos(cache), !holdsTables(cache) { throw .cacheHoldsPhotos(cache: given) }
      return .folder(photos, cache: cache)
    }
    // ViewerOptions asks for a folder or a cache.
    guard let path = options.cache else { throw .usage("give a FOLDER of photos, or --cache DIR") }
    let cache = folderURL(path)
    guard isFolder(cache) else { throw .noCache(path: path) }
    if holdsPhotos(cache), !holdsTables(cache) {
      let own = defaultCache(folder: cache, environment: environment)
      note(
        "'\(path)' holds photos and no tables: opening it as a folder of photos, rendered "
          + "into \(own.path) (nothing is written into '\(path)')")
      return .folder(cache, cache: own)
    }
    return .cache(cache)
  }

  /// A folder's own cache: `$XDG_CACHE_HOME/imgtool/photo-viewer/NAME-HASH` (else
  /// `~/.cache/...`), NAME the folder's name and HASH its full path's, so two folders
  /// of one name do not share one.
  static func defaultCache(folder: URL, environment: [String: String]) -> URL {
    let base: URL
    if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
      // The XDG spec: a relative XDG_CACHE_HOME is invalid and ignored.
      base = URL(fileURLWithPath: xdg)
    } else {
      let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
      base = URL(fileURLWithPath: home).appendingPathComponent(".cache")
    }
    let path = folder.resolvingSymlinksInPath().standardizedFileURL.path
    let name = String(
      folder.lastPathComponent.map { $0.isLetter || $0.isNumber || "._-".contains($0) ? $0 : "_" })
    let hash = String(Checksum.hash(path), radix: 16)
    let leaf = (name.isEmpty || name == "/" ? "root" : name) + "-" + hash
    return folderURL(base.appendingPathComponent("imgtool/photo-viewer/" + leaf).path)
  }

  /// `path` as a folder's URL, `.` and `..` taken out (so two spellings compare equal).
  static func folderURL(_ path: String) -> URL {
    URL(fileURLWithPath: URL(fileURLWithPath: path).standardizedFileURL.path, isDirectory: true)
  }

  static func isFolder(_ url: URL) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
      && isDirectory.boolValue
  }

  /// Whether `inner` is `outer` or lies inside it (links followed).
  static func contains(_ outer: URL, _ inner: URL) -> Bool {
    let outer = outer.resolvingSymlinksInPath().standardizedFileURL.path
    // The cache may not exist yet: resolve its nearest existing parent.
    var existing = inner.standardizedFileURL
    var tail: [String] = []
    while !FileManager.default.fileExists(atPath: existing.path), existing.path != "/" {
      tail.insert(existing.lastPathComponent, at: 0)
      existing.deleteLastPathComponent()
    }
    var resolved = existing.resolvingSymlinksInPath().standardizedFileURL
    for component in tail { resolved.appendPathComponent(component) }
    let path = resolved.path
    return path == outer || path.hasPrefix(outer.hasSuffix("/") ? outer : outer + "/")
  }

  /// Whether the folder holds a photo (at its top level).
  static func holdsPhotos(_ folder: URL) -> Bool {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.contains {
      !$0.hasPrefix(".")
        && photoExtensions.contains(URL(fileURLWithPath: $0).pathExtension.lowercased())
    }
  }

  /// Whether the folder holds a table of any format.
  static func holdsTables(_ folder: URL) -> Bool {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.contains { $0.hasSuffix(".table") }
  }
}

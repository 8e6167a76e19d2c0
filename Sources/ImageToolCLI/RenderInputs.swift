import CacheSharding
import Foundation
import ImageCaching
import Vips

/// The photos a render works on, found in the files and folders given: each with its
/// entity id, the path relative to the folder it was found in (stable across machines
/// and checkouts), or the file's name when the file was given itself.
struct RenderInputs {
  struct Input: Sendable, Equatable {
    var path: String
    var entityID: String
    /// Set for a URL (given itself or in a `--urls` list); `path` is then how it is shown.
    var url: URL? = nil
  }

  /// Image files a folder's walk picks up: every extension a trusted loader of the
  /// running libvips declares (HEIC and AVIF too when it has libheif); other files (a
  /// README, .DS_Store) are passed over.
  static var imageExtensions: Set<String> {
    (try? Vips.trustedLoaderSuffixes()) ?? fallbackExtensions
  }

  /// Where libvips cannot start (its error is then each photo's).
  static let fallbackExtensions: Set<String> = ["jpg", "jpeg", "png", "webp", "gif", "tif", "tiff"]

  /// Whether a folder's walk picks up a file with this extension: one of
  /// ``imageExtensions``, asked so that a folder of JPEG and PNG files does not load
  /// libvips's HEIF and JPEG XL modules (see `Vips.isTrustedLoaderSuffix`).
  static func isImageExtension(_ suffix: String) -> Bool {
    let suffix = suffix.lowercased()
    return (try? Vips.isTrustedLoaderSuffix(suffix)) ?? fallbackExtensions.contains(suffix)
  }

  var inputs: [Input] = []
  /// Paths that could not be used, with why.
  var problems: [(path: String, error: String)] = []
  /// Folders given that hold no image file at all (before any shard is taken): most
  /// likely the wrong folder, so the render says so rather than rendering nothing quietly.
  var emptyFolders: [String] = []
  /// The photos found before any shard was taken (URLs included).
  var foundBeforeShard = 0

  /// The photos in `paths` (files, folders and http/https URLs) and then `urls` (a
  /// `--urls` list); with a `shard`, only those whose entity id is in it (a path that
  /// does not exist is reported by every shard).
  init(paths: [String], urls: [URLList.Entry] = [], shard: Shard? = nil) {
    var seen: [String: String] = [:]
    func add(_ found: [Input]) {
      foundBeforeShard += found.count
      for input in found where shard?.contains(input.entityID) ?? true {
        if let first = seen[input.entityID] {
          // The same file named twice (itself and its folder), or a URL twice: one photo.
          if first == input.path || (input.url == nil && Self.sameFile(first, input.path)) {
            continue
          }
          // Two photos, one id: rendered one after the other, the second would replace
          // the first. A URL (either one) can be given an id of its own in a list.
          let remedy =
            input.url != nil || URLList.looksLikeWebURL(first)
            ? "give one an id of its own with a --urls line 'id<TAB>url'"
            : "give a folder that holds both (an id is the path below the folder given), or "
              + "render them into different caches"
          problems.append(
            (input.path, "its entity id '\(input.entityID)' is also \(first)'s; \(remedy)"))
          continue
        }
        seen[input.entityID] = input.path
        inputs.append(input)
      }
    }
    for path in paths {
      if URLList.looksLikeWebURL(path) {
        guard let url = URLList.webURL(path) else {
          problems.append((path, URLList.problem(path)))
          continue
        }
        add([Input(path: path, entityID: RenderedEntity.id(url: url), url: url)])
        continue
      }
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        // `ftp://h/a.jpg`, `file:///p/a.jpg`: a URL of a scheme the render does not fetch.
        let isURL = path.range(of: "^[A-Za-z][A-Za-z0-9+.-]*://", options: .regularExpression)
        problems.append((path, isURL != nil ? URLList.problem(path) : "no such file or folder"))
        continue
      }
      if isDirectory.boolValue {
        let found = Self.walk(path)
        if found.isEmpty { emptyFolders.append(path) }
        add(found)
      } else {
        add([Input(path: path, entityID: RenderedEntity.id(file: path, relativeTo: nil)!)])
      }
    }
    add(urls.map { Input(path: $0.url.absoluteString, entityID: $0.entityID, url: $0.url) })
  }

  /// Whether two paths name the same file (links followed).
  static func sameFile(_ a: String, _ b: String) -> Bool {
    URL(fileURLWithPath: a).resolvingSymlinksInPath().standardizedFileURL.path
      == URL(fileURLWithPath: b).resolvingSymlinksInPath().standardizedFileURL.path
  }

  private static func walk(_ folder: String) -> [Input] {
    let base = URL(fileURLWithPath: folder).standardizedFileURL
    guard
      let walker = FileManager.default.enumerator(
        at: base, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
    else { return [] }
    var found: [Input] = []
    for case let url as URL in walker
    where isImageExtension(url.pathExtension)
      && (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
    {
      guard let relative = RenderedEntity.id(file: url.path, relativeTo: base.path) else {
        continue
      }
      let display = folder.hasSuffix("/") ? folder + relative : folder + "/" + relative
      found.append(Input(path: display, entityID: relative))
    }
    return found.sorted { $0.entityID < $1.entityID }
  }
}

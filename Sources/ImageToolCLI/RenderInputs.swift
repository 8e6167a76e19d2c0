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
    /// The path as the file system holds it, when `path` is not it byte for byte (a name
    /// that is not UTF-8, shown escaped: see ``FolderWalk/text(_:)``).
    var pathBytes: [UInt8]? = nil

    /// The file's bytes (read by ``pathBytes`` when there are any).
    func readBytes() throws(VipsError) -> [UInt8] {
      guard let pathBytes else { return try FileBytes.read(path) }
      return try FileBytes.read(pathBytes: pathBytes, name: path)
    }
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
  /// Names a walk passed over that lose no photo (a link loop, a second name for a
  /// photo rendered under another), with why: said on standard error.
  var notes: [(path: String, reason: String)] = []
  /// Folders given that hold no image file at all (before any shard is taken): most
  /// likely the wrong folder, so the render says so rather than rendering nothing quietly.
  var emptyFolders: [String] = []
  /// The photos found before any shard was taken (URLs included).
  var foundBeforeShard = 0

  /// The photos in `paths` (files, folders and http/https URLs) and then `urls` (a
  /// `--urls` list); with a `shard`, only those whose entity id is in it (a path that
  /// does not exist is reported by every shard).
  init(paths: [String], urls: [URLList.Entry] = [], shard: Shard? = nil) {
    var seen: [String: Input] = [:]
    func add(_ found: [Input]) {
      foundBeforeShard += found.count
      for input in found where shard?.contains(input.entityID) ?? true {
        if let earlier = seen[input.entityID] {
          let first = earlier.path
          // The same file named twice (itself and its folder), or a URL twice: one photo.
          // Compared by the paths' bytes: a name that is not UTF-8 is shown escaped, and a
          // UTF-8 name may spell out that very escape ("caf\xff.png") for another file.
          let bytes = { (input: Input) in input.pathBytes ?? Array(input.path.utf8) }
          if bytes(earlier) == bytes(input) {
            continue
          }
          if input.url == nil, earlier.pathBytes == nil, input.pathBytes == nil,
            Self.sameFile(first, input.path)
          {
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
        seen[input.entityID] = input
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
      // A name that is not UTF-8 given itself comes escaped (see PathText).
      let raw = PathText.onDisk(path)
      var status = stat()
      let statted = (raw ?? Array(path.utf8)) + [0]
      guard
        statted.withUnsafeBufferPointer({
          $0.withMemoryRebound(to: CChar.self) { stat($0.baseAddress!, &status) }
        }) == 0
      else {
        let code = errno
        // `ftp://h/a.jpg`, `file:///p/a.jpg`: a URL of a scheme the render does not fetch.
        let isURL = path.range(of: "^[A-Za-z][A-Za-z0-9+.-]*://", options: .regularExpression)
        let reason =
          isURL != nil
          ? URLList.problem(path)
          : code == ENOENT || code == ENOTDIR ? "no such file or folder" : FileBytes.reason(code)
        problems.append((path, reason))
        continue
      }
      switch status.st_mode & S_IFMT {
      case S_IFDIR:
        let walk = FolderWalk(
          folder: raw ?? Array(path.utf8), isImage: Self.isImageExtension,
          passedOverReason: Vips.blockedSuffixReason)
        let found = walk.photos.map { photo in
          let relative = FolderWalk.text(photo.relativeBytes)
          let display = path.hasSuffix("/") ? path + relative : path + "/" + relative
          let isText = String(validating: photo.pathBytes, as: UTF8.self) != nil
          return Input(
            path: display, entityID: relative, pathBytes: isText ? nil : photo.pathBytes)
        }
        let lost = walk.leftOut.filter(\.losesPhotos)
        // Holding only hidden photos (named as left out) is not holding none.
        if found.isEmpty, walk.leftOut.isEmpty { emptyFolders.append(path) }
        problems += lost.map { ($0.path, $0.reason) }
        notes += walk.leftOut.filter { !$0.losesPhotos }.map { ($0.path, $0.reason) }
        add(found)
      case S_IFREG:
        add([
          Input(
            path: path, entityID: RenderedEntity.id(file: path, relativeTo: nil)!, pathBytes: raw)
        ])
      default:
        problems.append(
          (path, "not a regular file (\(FileBytes.kind(status.st_mode) ?? "not a file"))"))
      }
    }
    add(urls.map { Input(path: $0.url.absoluteString, entityID: $0.entityID, url: $0.url) })
  }

  /// Whether two paths name the same file (links followed).
  static func sameFile(_ a: String, _ b: String) -> Bool {
    URL(fileURLWithPath: a).resolvingSymlinksInPath().standardizedFileURL.path
      == URL(fileURLWithPath: b).resolvingSymlinksInPath().standardizedFileURL.path
  }

}

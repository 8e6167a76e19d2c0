import Foundation
import Vips

#if canImport(Glibc)
  import Glibc
#endif

/// The walk of one folder given to a render: every photo below it, each once, and every
/// file or folder it leaves out, with why.
///
/// Names are taken as the file system gives them (`readdir`, bytes, not Foundation's
/// strings, which drop or mangle a name that is not UTF-8). Symbolic links are followed,
/// to photos and to folders. A folder is walked once (by device and inode): a link to a
/// folder the walk is in is a loop, and a link to one walked already adds nothing. Folders
/// reached through a link are walked after every folder reached without one, and a file
/// reached by two names (links, hard links) is one photo under the name reached without
/// a link, else the first in name order; the others are named as left out.
///
/// A path longer than the system's limit (`PATH_MAX`) cannot be opened by its path:
/// such a file or folder is named as left out with that reason. Hidden entries (names
/// starting with a dot) are not walked: a hidden folder, or a hidden file with an image
/// extension, is named as left out (a note: named directly, it is rendered). So is a
/// file of an image format that only a blocked loader reads (`.bmp`, `.svg`).
struct FolderWalk {
  struct Photo {
    /// The path as the file system holds it (the folder given, then the names below).
    var pathBytes: [UInt8]
    /// The path relative to the folder given.
    var relativeBytes: [UInt8]
    /// Reached through a symbolic link (itself one, or in a folder reached through one).
    var throughLink: Bool
  }

  /// A file or folder the walk did not render, with why. `losesPhotos`: it may hold a
  /// photo (a file with an image extension, a folder) that is then not rendered; a
  /// second name for a photo rendered under another is not.
  struct LeftOut: Equatable {
    var path: String
    var reason: String
    var losesPhotos: Bool
  }

  private(set) var photos: [Photo] = []
  private(set) var leftOut: [LeftOut] = []

  private struct FileID: Hashable {
    var device: UInt64
    var inode: UInt64
    init(_ status: stat) {
      device = UInt64(status.st_dev)
      inode = UInt64(status.st_ino)
    }
  }

  /// A folder to walk: its path, relative path, and the folders that hold it (a link
  /// back to one of them is a loop).
  private struct Pending {
    var pathBytes: [UInt8]
    var relativeBytes: [UInt8]
    var throughLink: Bool
    var ancestors: [FileID]
  }

  /// Walks the folder whose path is `folder` (as given, in the file system's bytes;
  /// `isImage` says which extensions are photos, and `passedOverReason` why a file with
  /// another extension is worth naming as left out: an image format no trusted loader
  /// reads; nil passes it over without a word, as a README).
  init(
    folder: [UInt8], isImage: (String) -> Bool,
    passedOverReason: (String) -> String? = { _ in nil }
  ) {
    var folderBytes = folder
    while folderBytes.count > 1, folderBytes.last == UInt8(ascii: "/") { folderBytes.removeLast() }
    var walked: [FileID: [UInt8]] = [:]
    var byFile: [FileID: [Photo]] = [:]
    var order: [FileID] = []
    var queue: [Pending] = [
      .init(pathBytes: folderBytes, relativeBytes: [], throughLink: false, ancestors: [])
    ]
    var linked: [Pending] = []
    while let next = queue.popLast() ?? (linked.isEmpty ? nil : linked.removeFirst()) {
      var status = stat()
      guard Self.fileStatus(next.pathBytes, &status) == 0 else {
        // Gone or unreadable since its folder was read.
        leftOut.append(
          LeftOut(
            path: Self.text(next.pathBytes),
            reason: "cannot read the folder: \(FileBytes.reason(errno))", losesPhotos: true))
        continue
      }
      guard status.st_mode & S_IFMT == S_IFDIR else {
        leftOut.append(
          LeftOut(
            path: Self.text(next.pathBytes),
            reason: "no longer a folder (it changed while the render read it)",
            losesPhotos: true))
        continue
      }
      let id = FileID(status)
      if let first = walked[id] {
        let isLoop = next.ancestors.contains(id)
        leftOut.append(
          LeftOut(
            path: Self.text(next.pathBytes),
            reason: isLoop
              ? "a symbolic link loop: it leads to \(Self.text(first)), which holds it"
              : "a symbolic link to \(Self.text(first)), walked already (its photos are "
                + "rendered once, under that name)",
            losesPhotos: false))
        continue
      }
      walked[id] = next.pathBytes
      let entries: [[UInt8]]
      switch Self.names(in: next.pathBytes) {
      case .success(let names): entries = names
      case .failure(let reason):
        leftOut.append(
          LeftOut(
            path: Self.text(next.pathBytes), reason: "cannot read the folder: \(reason)",
            losesPhotos: true))
        continue
      }
      var subfolders: [Pending] = []
      for name in entries {
        let path = next.pathBytes + [UInt8(ascii: "/")] + name
        // Hidden (a name starting with a dot): not walked nor rendered, but named when it
        // may be a photo (an image extension) or hold some (a folder).
        if name.first == UInt8(ascii: ".") {
          if let reason = Self.hiddenReason(path, name, isImage) {
            leftOut.append(LeftOut(path: Self.text(path), reason: reason, losesPhotos: false))
          }
          continue
        }
        let relative =
          next.relativeBytes.isEmpty ? name : next.relativeBytes + [UInt8(ascii: "/")] + name
        var own = stat()
        guard Self.fileStatus(path, &own, follow: false) == 0 else {
          let reason = FileBytes.reason(errno)
          leftOut.append(LeftOut(path: Self.text(path), reason: reason, losesPhotos: true))
          continue
        }
        let isLink = own.st_mode & S_IFMT == S_IFLNK
        var target = own
        if isLink, Self.fileStatus(path, &target) != 0 {
          let code = errno
          let reason =
            code == ELOOP
            ? "a symbolic link loop: it leads to \(Self.linkTarget(path)), and the links from there never reach a file"
            : code == ENOENT
              ? "a symbolic link to \(Self.linkTarget(path)), which does not exist"
              : "a symbolic link to \(Self.linkTarget(path)): \(FileBytes.reason(code))"
          leftOut.append(
            LeftOut(
              path: Self.text(path), reason: reason,
              losesPhotos: Self.hasImageExtension(name, isImage)))
          continue
        }
        let throughLink = next.throughLink || isLink
        switch target.st_mode & S_IFMT {
        case S_IFDIR:
          let pending = Pending(
            pathBytes: path, relativeBytes: relative, throughLink: throughLink,
            ancestors: next.ancestors + [id])
          if isLink { linked.append(pending) } else { subfolders.append(pending) }
        case S_IFREG:
          guard Self.hasImageExtension(name, isImage) else {
            if let suffix = Self.suffix(name), let reason = passedOverReason(suffix.lowercased()) {
              leftOut.append(LeftOut(path: Self.text(path), reason: reason, losesPhotos: false))
            }
            continue
          }
          if path.count >= Int(PATH_MAX) {
            leftOut.append(
              LeftOut(
                path: Self.text(path),
                reason: "the path is longer than the system's limit of \(PATH_MAX) bytes",
                losesPhotos: true))
            continue
          }
          let file = FileID(target)
          if byFile[file] == nil { order.append(file) }
          byFile[file, default: []].append(
            Photo(pathBytes: path, relativeBytes: relative, throughLink: throughLink))
        default:
          guard Self.hasImageExtension(name, isImage) else { continue }
          leftOut.append(
            LeftOut(
              path: Self.text(path),
              reason: "not a regular file (\(FileBytes.kind(target.st_mode) ?? "not a file"))",
              losesPhotos: true))
        }
      }
      // Depth first, in name order: the stack pops the first name first.
      queue += subfolders.reversed()
    }
    for file in order {
      let names = byFile[file]!.sorted {
        $0.relativeBytes.lexicographicallyPrecedes($1.relativeBytes)
      }
      let kept = names.first { !$0.throughLink } ?? names[0]
      photos.append(kept)
      for other in names where other.pathBytes != kept.pathBytes {
        leftOut.append(
          LeftOut(
            path: Self.text(other.pathBytes),
            reason:
              "the same file as \(Self.text(kept.pathBytes)) (rendered once, under that name)",
            losesPhotos: false))
      }
    }
    photos.sort { $0.relativeBytes.lexicographicallyPrecedes($1.relativeBytes) }
  }

  /// Why a hidden entry is left out, when it is a folder (which may hold photos) or a
  /// file with an image extension (its whole name one, `.jpg`, too); nil for any other
  /// (`.DS_Store`), passed over as every file without an image extension is.
  private static func hiddenReason(
    _ path: [UInt8], _ name: [UInt8], _ isImage: (String) -> Bool
  ) -> String? {
    var status = stat()
    if fileStatus(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
      return "a hidden folder, not walked (name it directly to render its photos)"
    }
    let dot = name.lastIndex(of: UInt8(ascii: "."))!
    guard let suffix = String(validating: name[(dot + 1)...], as: UTF8.self), isImage(suffix)
    else { return nil }
    return "a hidden file (name it directly to render it)"
  }

  private static func hasImageExtension(_ name: [UInt8], _ isImage: (String) -> Bool) -> Bool {
    suffix(name).map(isImage) ?? false
  }

  /// The extension of a name that is not hidden (`a.jpg`: `jpg`), when it is UTF-8.
  private static func suffix(_ name: [UInt8]) -> String? {
    guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0 else { return nil }
    return String(validating: name[(dot + 1)...], as: UTF8.self)
  }

  /// The names in the folder at `path` (`.` and `..` left out), or why it cannot be read.
  private static func names(in path: [UInt8]) -> Result<[[UInt8]], WalkFailure> {
    if path.count >= Int(PATH_MAX) {
      return .failure(
        WalkFailure("the path is longer than the system's limit of \(PATH_MAX) bytes"))
    }
    let folder = withCString(path) { opendir($0) }
    guard let folder else { return .failure(WalkFailure(FileBytes.reason(errno))) }
    defer { closedir(folder) }
    var names: [[UInt8]] = []
    errno = 0
    while let entry = readdir(folder) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        Array(raw.prefix { $0 != 0 })
      }
      if name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")] {
        names.append(name)
      }
    }
    if errno != 0 { return .failure(WalkFailure(FileBytes.reason(errno))) }
    return .success(names.sorted { $0.lexicographicallyPrecedes($1) })
  }

  struct WalkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }

  private static func fileStatus(_ path: [UInt8], _ status: inout stat, follow: Bool = true)
    -> Int32
  {
    withCString(path) { follow ? stat($0, &status) : lstat($0, &status) }
  }

  /// Where the link at `path` leads, as it is written (escaped as ``text(_:)`` does).
  private static func linkTarget(_ path: [UInt8]) -> String {
    var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX))
    let count = withCString(path) { path in
      buffer.withUnsafeMutableBufferPointer {
        $0.withMemoryRebound(to: CChar.self) { readlink(path, $0.baseAddress!, $0.count) }
      }
    }
    return count > 0 ? text(Array(buffer[..<count])) : "?"
  }

  private static func withCString<T>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T {
    (bytes + [0]).withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
    }
  }

  /// A name's bytes as text (``PathText/text(_:)``: escaped when not UTF-8).
  static func text(_ bytes: [UInt8]) -> String { PathText.text(bytes) }
}

import Foundation
import ImageTables
import Vips

/// The entities `imgtool render` and `swift package render-images` write, by the same
/// rules they use, so that an app finds their entries without copying those rules.
///
/// A photo found in a folder given to the render has the path relative to that folder
/// as its id (`trips/rome.jpg`: the same on every machine and checkout); a file given
/// itself has its file name. Its source version is a hash of its bytes, so a photo
/// edited in place is a miss until it is rendered again.
///
/// ```swift
/// import ImageCaching
///
/// // imgtool render --family photo Photos
/// let entity = try RenderedEntity.entity(file: "Photos/trips/rome.jpg", relativeTo: "Photos")
/// // entity.id == "trips/rome.jpg"
/// ```
public enum RenderedEntity {
  /// The id the render gives `file`: its path relative to `folder` (the folder given to
  /// the render that found it), or its file name when `folder` is nil (a file given
  /// itself). Both paths may be relative to the current folder; `.` and `..` are
  /// resolved, links are not. Nil when `file` is not inside `folder`.
  public static func id(file: String, relativeTo folder: String?) -> String? {
    guard let folder else { return (file as NSString).lastPathComponent }
    let base = URL(fileURLWithPath: folder).standardizedFileURL.path
    let full = URL(fileURLWithPath: file).standardizedFileURL.path
    let prefix = base.hasSuffix("/") ? base : base + "/"
    guard full.hasPrefix(prefix), full.count > prefix.count else { return nil }
    return String(full.dropFirst(prefix.count))
  }

  /// The source version the render gives a photo of these bytes.
  public static func sourceVersion(of bytes: [UInt8]) -> String { Checksum.hex(bytes) }

  /// The entity the render made of `file` (read here, to hash its bytes), its source the
  /// file, so that a miss fills from it.
  public static func entity(file: String, relativeTo folder: String?) throws(RenderedEntityError)
    -> Entity
  {
    guard let id = id(file: file, relativeTo: folder) else {
      throw .outsideFolder(file: file, folder: folder ?? "")
    }
    let bytes: [UInt8]
    do {
      bytes = try FileBytes.read(file)
    } catch {
      guard case .unreadable(_, let message) = error else {
        throw .unreadable(file: file, message: error.reason)
      }
      throw .unreadable(file: file, message: message)
    }
    return Entity(id: id, sourceVersion: sourceVersion(of: bytes), source: .file(file))
  }

  /// The entity the render makes of `bytes` read from `file`: what a render fills.
  public static func entity(bytes: [UInt8], file: String, id: String) -> Entity {
    Entity(id: id, sourceVersion: sourceVersion(of: bytes), source: .bytes(bytes, name: file))
  }
}

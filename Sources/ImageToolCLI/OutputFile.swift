import Foundation

/// An image file a command is to write, checked before any work: its folder must be
/// there, be a folder and let this user write. libvips would say only `pngsave failed`
/// and `unix error`, and only once the work is done.
enum OutputFile {
  /// Throws when `path` cannot be written; `option` names the option that gave it.
  static func check(_ path: String, option: String? = nil) throws(OutputFileError) {
    let folder = (path as NSString).deletingLastPathComponent
    let shown = folder.isEmpty ? "." : folder
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
      throw .isAFolder(path: path, option: option)
    }
    guard FileManager.default.fileExists(atPath: shown, isDirectory: &isFolder) else {
      throw .noFolder(path: path, folder: shown, option: option)
    }
    guard isFolder.boolValue else { throw .notAFolder(path: path, folder: shown, option: option) }
    guard access(shown, W_OK | X_OK) == 0 else {
      throw .folderNotWritable(path: path, folder: shown, option: option)
    }
  }
}

/// Why an output file cannot be written, found before the command does its work.
enum OutputFileError: Error, CustomStringConvertible {
  case noFolder(path: String, folder: String, option: String?)
  case isAFolder(path: String, option: String?)
  case notAFolder(path: String, folder: String, option: String?)
  case folderNotWritable(path: String, folder: String, option: String?)

  var description: String {
    switch self {
    case .noFolder(let path, let folder, let option):
      "\(Self.prefix(option))cannot write \(path): the folder \(folder) does not exist; "
        + "create it first (mkdir -p \(folder)) or give a path in a folder that does"
    case .isAFolder(let path, let option):
      "\(Self.prefix(option))cannot write \(path): it is a folder; give a file's name"
    case .notAFolder(let path, let folder, let option):
      "\(Self.prefix(option))cannot write \(path): \(folder) is a file, not a folder"
    case .folderNotWritable(let path, let folder, let option):
      "\(Self.prefix(option))cannot write \(path): this user may not write in the folder "
        + "\(folder); give a path in a folder it may write in"
    }
  }

  private static func prefix(_ option: String?) -> String { option.map { "\($0): " } ?? "" }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why this user cannot read a file that is there: a folder on its path it may not
/// enter, or the file's own mode. Made only when that is so (`nil` for a file that is
/// readable, or missing for every user as far as this one can tell).
struct UnreadablePath: CustomStringConvertible {
  /// The folder or the file refused.
  var path: String
  var isFolder: Bool
  var mode: mode_t
  var owner: uid_t

  init?(_ file: String, links: Int = 0) {
    var status = stat()
    // EACCES from stat: a folder on the path may not be entered; find the first (on
    // the path a symbolic link leads to, when the file is one).
    if stat(file, &status) != 0 {
      guard errno == EACCES, links < 8 else { return nil }
      var folder = ""
      for component in file.split(separator: "/").dropLast() {
        folder += "/" + component
        guard access(folder, X_OK) != 0 else { continue }
        guard stat(folder, &status) == 0 else { return nil }
        self.init(path: folder, isFolder: true, status: status)
        return
      }
      guard let target = Self.linkTarget(file) else { return nil }
      self.init(target, links: links + 1)
      return
    }
    guard access(file, R_OK) != 0 else { return nil }
    self.init(path: file, isFolder: false, status: status)
  }

  private init(path: String, isFolder: Bool, status: stat) {
    self.path = path
    self.isFolder = isFolder
    mode = status.st_mode & 0o7777
    owner = status.st_uid
  }

  /// Where the symbolic link `path` leads (relative targets from its folder); nil when
  /// it is no link.
  static func linkTarget(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let whole =
      target.hasPrefix("/")
      ? target
      : path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        .joined(separator: "/") + "/" + target
    // `a/b/../c` as `a/c`, so that the folder named is the one a person looks for.
    var components: [Substring] = []
    for component in whole.split(separator: "/") where component != "." {
      if component == ".." { _ = components.popLast() } else { components.append(component) }
    }
    return "/" + components.joined(separator: "/")
  }

  /// A user's name, or its number when it has none.
  static func name(of user: uid_t) -> String {
    guard let entry = getpwuid(user), let name = entry.pointee.pw_name else { return "uid \(user)" }
    return String(cString: name)
  }

  var description: String {
    let modeText = "0" + String(mode, radix: 8)
    let what =
      isFolder
      ? "the folder \(path) on its path, which this user (\(Self.name(of: getuid()))) may not "
        + "enter (mode \(modeText), owned by \(Self.name(of: owner)))"
      : "its mode, \(modeText) (owned by \(Self.name(of: owner))), which does not let this user "
        + "(\(Self.name(of: getuid()))) read it"
    let fix = isFolder ? "chmod a+x \(path)" : "chmod a+r \(path)"
    return "\(what); let this user in ('\(fix)', as \(Self.name(of: owner))) or copy imgtool "
      + "and \(EngineLauncher.libraryName) to a folder every user can read"
  }
}

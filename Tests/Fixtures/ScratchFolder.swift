import Foundation
import Locking

#if canImport(Glibc)
  import Glibc
#endif

/// One folder per test process, `imagetool-tests-<pid>` in the temporary directory, that
/// holds every test's scratch folder and the made fixtures. It is removed when the
/// process exits; folders left by processes that died (killed children, a crash) are
/// removed by the next test process.
enum ScratchFolder {
  private static let prefix = "imagetool-tests-"
  private static let root = Lock<URL?>(nil)

  /// A new empty folder under this process's scratch folder.
  static func makeFolder(named name: String = UUID().uuidString) throws -> URL {
    let folder = try processFolder().appendingPathComponent(name)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }

  /// This process's scratch folder, made on first use.
  static func processFolder() throws -> URL {
    try root.withLock { root in
      if let root { return root }
      let temporary = FileManager.default.temporaryDirectory
      removeFoldersOfDeadProcesses(in: temporary)
      let folder = temporary.appendingPathComponent("\(prefix)\(getpid())")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      root = folder
      atexit { ScratchFolder.removeProcessFolder() }
      return folder
    }
  }

  private static func removeProcessFolder() {
    if let folder = root.withLock({ $0 }) {
      try? FileManager.default.removeItem(at: folder)
    }
  }

  private static func removeFoldersOfDeadProcesses(in temporary: URL) {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
    for name in names where name.hasPrefix(prefix) {
      guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid() else { continue }
      if kill(pid, 0) != 0 && errno == ESRCH {
        try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
      }
    }
  }
}

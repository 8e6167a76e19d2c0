#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why the engine could not be started.
enum EngineLoadError: Error, CustomStringConvertible {
  case noExecutablePath(errno: Int32)
  case missing(path: String, buildCommand: String)
  /// There, but this user may not read it (or enter a folder on its path).
  case unreadable(path: String, why: UnreadablePath)
  case unloadable(path: String, reason: String, buildCommand: String)
  case noEntryPoint(path: String, buildCommand: String)
  /// Building it in the package the launcher was built in failed (see `PackageBuild`).
  case buildFailed(command: String, reason: String)

  var description: String {
    switch self {
    case .noExecutablePath(let code):
      "cannot find the folder of this executable (/proc/self/exe: "
        + "\(String(cString: strerror(code)))), where its engine \(EngineLauncher.libraryName) is"
    case .missing(let path, let command):
      "the engine \(path) is missing: imgtool runs every command but --version in it; "
        + "build it beside this executable with '\(command)' from the package's folder, "
        + "or, if you copied imgtool elsewhere, copy libImageToolEngine.so beside it"
    case .unreadable(let path, let why):
      "the engine \(path) is there but cannot be read: \(why)"
    case .unloadable(let path, let reason, let command):
      "cannot load the engine \(path): \(reason); rebuild it with '\(command)'"
    case .noEntryPoint(let path, let command):
      "\(path) is not an imgtool engine (it has no \(EngineLauncher.entryPointName)); "
        + "rebuild it with '\(command)'"
    case .buildFailed(let command, let reason):
      "could not build the engine with '\(command)': \(reason)"
    }
  }
}

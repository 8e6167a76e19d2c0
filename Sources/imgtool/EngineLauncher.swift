#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Finds the engine library beside the running executable, loads it and returns its
/// entry point, `imgtool_engine_main(argc, argv)`, which runs the command line and ends
/// the process.
///
/// The engine (`libImageToolEngine.so`, the SwiftPM product `ImageToolEngine`) holds
/// every command and links libvips, whose hundred-odd libraries take tens of
/// milliseconds to map and relocate; the launcher links neither, so what it answers
/// alone (`--version`) starts as fast as the Swift runtime does.
enum EngineLauncher {
  typealias EntryPoint =
    @convention(c) (Int32, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>)
    -> Int32

  /// The engine's file name, looked for in the folder of the running executable.
  static let libraryName = "libImageToolEngine.so"
  /// The engine's one exported function.
  static let entryPointName = "imgtool_engine_main"
  /// The exit status when the engine is missing or cannot be loaded (`EX_UNAVAILABLE`).
  static let unavailableStatus: Int32 = 69

  /// Loads the engine and returns its entry point.
  static func load() throws(EngineLoadError) -> EntryPoint {
    let folder = try executableFolder()
    let path = folder + "/" + libraryName
    // Global, so that libvips's symbols are found by name as they are in a process that
    // links it (its modules and `--plugin` libraries resolve against them). Lazy, so that
    // libraries built without BIND_NOW keep their lazy binding, as when linked: RTLD_NOW
    // made ld.so bind 48,000 symbols at start instead of 34,000 (LD_DEBUG=statistics).
    guard let library = dlopen(path, RTLD_LAZY | RTLD_GLOBAL) else {
      let reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
      if access(path, F_OK) != 0 {
        throw .missing(path: path, buildCommand: buildCommand(for: folder))
      }
      throw .unloadable(path: path, reason: reason, buildCommand: buildCommand(for: folder))
    }
    guard let symbol = dlsym(library, entryPointName) else {
      throw .noEntryPoint(path: path, buildCommand: buildCommand(for: folder))
    }
    return unsafeBitCast(symbol, to: EntryPoint.self)
  }

  /// The folder that holds the running executable, symbolic links resolved.
  static func executableFolder() throws(EngineLoadError) -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { throw .noExecutablePath(errno: errno) }
    let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// The SwiftPM command that builds the engine into `folder`: `-c release` unless the
  /// folder is a debug build's.
  static func buildCommand(for folder: String) -> String {
    let configuration = folder.hasSuffix("/debug") ? "" : "-c release "
    return "swift build \(configuration)--product ImageToolEngine"
  }
}

/// Why the engine could not be started.
enum EngineLoadError: Error, CustomStringConvertible {
  case noExecutablePath(errno: Int32)
  case missing(path: String, buildCommand: String)
  case unloadable(path: String, reason: String, buildCommand: String)
  case noEntryPoint(path: String, buildCommand: String)

  var description: String {
    switch self {
    case .noExecutablePath(let code):
      "cannot find the folder of this executable (/proc/self/exe: "
        + "\(String(cString: strerror(code)))), where its engine \(EngineLauncher.libraryName) is"
    case .missing(let path, let command):
      "the engine \(path) is missing: imgtool runs every command but --version in it; "
        + "build it beside this executable with '\(command)' from the package's folder, "
        + "or, if you copied imgtool elsewhere, copy libImageToolEngine.so beside it"
    case .unloadable(let path, let reason, let command):
      "cannot load the engine \(path): \(reason); rebuild it with '\(command)'"
    case .noEntryPoint(let path, let command):
      "\(path) is not an imgtool engine (it has no \(EngineLauncher.entryPointName)); "
        + "rebuild it with '\(command)'"
    }
  }
}

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

  /// Loads the engine and returns its entry point. In a SwiftPM build folder of the
  /// package (`swift run imgtool` builds only the launcher's product), a missing engine
  /// is built first (see ``PackageBuild``).
  static func load() throws(EngineLoadError) -> EntryPoint {
    let folder = try executableFolder()
    let path = folder + "/" + libraryName
    if !exists(path), let build = PackageBuild(folder: folder) {
      try build.buildEngine()
    }
    if let engine = ELFFile(path: path) {
      // Cut short (a copy that stopped), it would be mapped all the same: the loader
      // dies of SIGBUS on the first missing page.
      if engine.loadedLength > engine.length {
        throw .unloadable(
          path: path,
          reason: "\(path): the file is cut short (\(engine.length) bytes, where its headers "
            + "describe \(engine.loadedLength))", buildCommand: buildCommand(for: folder))
      }
      if let needs = ELFDynamicSection(engine) { DependencyPreload.run(engine: needs, at: path) }
    }
    // Global, so that libvips's symbols are found by name as they are in a process that
    // links it (its modules and `--plugin` libraries resolve against them). Lazy, so that
    // libraries built without BIND_NOW keep their lazy binding, as when linked: RTLD_NOW
    // made ld.so bind 48,000 symbols at start instead of 34,000 (LD_DEBUG=statistics).
    guard let library = dlopen(path, RTLD_LAZY | RTLD_GLOBAL) else {
      let reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
      // There but not for this user (a clone in a folder only its owner may enter):
      // not "missing", and no rebuild helps.
      if let unreadable = UnreadablePath(path) {
        throw .unreadable(path: path, why: unreadable)
      }
      if !exists(path) {
        throw .missing(path: path, buildCommand: buildCommand(for: folder))
      }
      throw .unloadable(path: path, reason: reason, buildCommand: buildCommand(for: folder))
    }
    guard let symbol = dlsym(library, entryPointName) else {
      throw .noEntryPoint(path: path, buildCommand: buildCommand(for: folder))
    }
    return unsafeBitCast(symbol, to: EntryPoint.self)
  }

  /// Whether `path` exists for this user (a folder it cannot enter hides it: false).
  static func exists(_ path: String) -> Bool {
    access(path, F_OK) == 0
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

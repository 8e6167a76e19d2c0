#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Loads the libraries that the engine's own libraries need, before the engine, so that
/// the dynamic loader relocates each in the scope of its own dependencies instead of
/// behind all hundred-odd of the engine's.
///
/// The loader looks each symbol up in every library of the scope in turn, and the big
/// libraries (libcrypto, ICU, OpenEXR, HDF5) look thousands of their own up: in the
/// engine's scope, where they come 60 to 90 libraries in, that was half of
/// `imgtool help`'s start (`perf`: `do_lookup_x` 37%). Loaded here first, every start
/// is 4 to 8 ms shorter (`Benchmarks/startup --before`).
///
/// What is loaded, and how, keeps every symbol bound where it was:
/// - the engine's libraries, last first, each after its own dependencies, but never
///   libvips: the engine replaces some of libvips's functions (its error buffer,
///   `ThreadErrors.c`), and libvips must be relocated with the engine ahead of it
///   (its dependencies are preloaded all the same);
/// - each local (`RTLD_LOCAL`): the engine, loaded global after them, puts its
///   libraries into the global scope in the order it always did;
/// - only when the engine looks for libraries where this executable does (the same
///   `RUNPATH`, no `RPATH`), and a dependency's dependency only where this executable
///   finds the file that dependency would (their `RUNPATH` folders hold it first, or
///   none does).
/// The launcher's tests compare the loader's bindings of every symbol with and without
/// this. A library not found or not loaded is left to the engine's own load to report.
enum DependencyPreload {
  /// The environment variable that, set to `0`, loads the engine without the preload: to
  /// compare the two (the launcher's tests do).
  static let switchName = "IMGTOOL_PRELOAD"

  /// Preloads for the engine at `path`, whose dynamic section is `engine`.
  static func run(engine: ELFDynamicSection, at path: String) {
    if let value = getenv(switchName), String(cString: value) == "0" { return }
    guard let launcher = ELFDynamicSection(path: "/proc/self/exe"),
      engine.rpath == nil, launcher.rpath == nil, engine.runpath == launcher.runpath
    else { return }
    let engineFolder = folder(of: path)
    // Where this executable's `dlopen` looks before the system's folders.
    let launcherFolders = folders(launcher.runpath, origin: engineFolder)
    let searched = libraryPathFolders() + (launcherFolders ?? []) + systemFolders()
    var tried: Set<String> = []
    func preload(_ name: String) {
      guard tried.insert(name).inserted else { return }
      if dlopen(name, RTLD_LAZY | RTLD_LOCAL) == nil {
        _ = dlerror()  // not kept: the engine's own load says what is missing
      }
    }
    for library in engine.needed.reversed() {
      // Its dependencies first, each then relocated in its own small scope.
      if let launcherFolders, let file = find(library, in: searched),
        let needs = ELFDynamicSection(path: file), needs.rpath == nil,
        let ownFolders = folders(needs.runpath, origin: folder(of: file))
      {
        for name in needs.needed.reversed()
        where firstFolder(holding: name, in: launcherFolders)
          == firstFolder(holding: name, in: ownFolders)
        {
          preload(name)
        }
      }
      // The engine's own, found as the engine finds them (the same RUNPATH), but not
      // one whose functions the engine replaces.
      if !replacedByTheEngine(library) { preload(library) }
    }
  }

  /// Whether the engine defines functions of `library` that `library` must call: then
  /// `library` is relocated with the engine ahead of it. The engine replaces libvips's
  /// error functions and its threadpool run (`Sources/CVipsShim/ThreadErrors.c`).
  static func replacedByTheEngine(_ library: String) -> Bool {
    library.hasPrefix("libvips.so")
  }

  /// The folders of a `RUNPATH` (none without one), `$ORIGIN` read as `origin`; nil,
  /// unknown, for a path with the loader's other variables (`$LIB`, `$PLATFORM`), which
  /// this does not expand.
  static func folders(_ runpath: String?, origin: String) -> [String]? {
    guard let runpath else { return [] }
    guard !runpath.contains("$LIB"), !runpath.contains("${LIB"), !runpath.contains("PLATFORM")
    else { return nil }
    return runpath.split(separator: ":").map {
      String($0).replacing("${ORIGIN}", with: origin).replacing("$ORIGIN", with: origin)
    }
  }

  /// `LD_LIBRARY_PATH`'s folders, which the loader searches before any `RUNPATH`.
  static func libraryPathFolders() -> [String] {
    guard let value = getenv("LD_LIBRARY_PATH") else { return [] }
    return String(cString: value).split(whereSeparator: { $0 == ":" || $0 == ";" }).map(String.init)
  }

  /// The folder of the C library this process runs with (Debian's multiarch folder),
  /// read from `/proc/self/maps`: where the system's libraries are looked for after the
  /// paths above.
  static func systemFolders() -> [String] {
    let descriptor = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return [] }
    defer { close(descriptor) }
    var text: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16_384)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count <= 0 { break }
      text += chunk[..<count]
    }
    for line in text.split(separator: UInt8(ascii: "\n")) {
      let path = String(decoding: line, as: UTF8.self).split(separator: " ").last ?? ""
      if path.hasPrefix("/"), path.hasSuffix("/libc.so.6") { return [folder(of: String(path))] }
    }
    return []
  }

  static func find(_ name: String, in folders: [String]) -> String? {
    firstFolder(holding: name, in: folders).map { $0 + "/" + name }
  }

  static func firstFolder(holding name: String, in folders: [String]) -> String? {
    folders.first { access($0 + "/" + name, F_OK) == 0 }
  }

  static func folder(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }
}

import Foundation
import ImageToolCLI
import Testing
import Vips

/// `imgtool` is a launcher: it answers `--version` itself and runs every other command
/// in the engine library beside it (`libImageToolEngine.so`). These run the built
/// launcher in its own process, as a user does.
@Suite("imgtool launcher")
struct LauncherTests {
  static let engineName = "libImageToolEngine.so"

  /// A folder of its own (symbolic links resolved, as `/proc/self/exe` resolves them)
  /// holding a copy of the launcher and, when given, `engine` under the engine's name.
  func lonelyLauncher(folderName: String = "bin", engine: Data? = nil) throws -> URL {
    let folder = try Paths.temporaryFolder().appendingPathComponent(folderName)
      .resolvingSymlinksInPath()
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let launcher = folder.appendingPathComponent("imgtool")
    try FileManager.default.copyItem(at: Paths.executable, to: launcher)
    if let engine { try engine.write(to: folder.appendingPathComponent(Self.engineName)) }
    return launcher
  }

  @Test func versionIsTheEnginesConstantAndVerboseNamesLibvips() throws {
    let version = try runExecutable(["--version"])
    #expect(version.status == 0)
    #expect(version.out == "imgtool \(ImageTool.version)\n")
    #expect(version.err.isEmpty)
    let verbose = try runExecutable(["--version", "--verbose"])
    #expect(verbose.status == 0)
    #expect(verbose.out == "imgtool \(ImageTool.version) (libvips \(Vips.version))\n")
    let wrong = try runExecutable(["--version", "--loud"])
    #expect(wrong.status == 64)
    #expect(wrong.err.hasPrefix("imgtool: unknown option '--loud'; did you mean '--verbose'?\n"))
  }

  @Test func versionAloneNeedsNoEngine() throws {
    let launcher = try lonelyLauncher()
    let result = try runExecutable(["--version"], program: launcher)
    #expect(result.status == 0)
    #expect(result.out == "imgtool \(ImageTool.version)\n")
  }

  @Test func aMissingEngineIsNamedWithTheCommandThatBuildsIt() throws {
    let launcher = try lonelyLauncher()
    let folder = launcher.deletingLastPathComponent().path
    let result = try runExecutable(["info", Paths.bundled("rocket.jpg")], program: launcher)
    #expect(result.status == 69)
    #expect(result.out.isEmpty)
    #expect(
      result.err
        == "imgtool: the engine \(folder)/\(Self.engineName) is missing: imgtool runs every "
        + "command but --version in it; build it beside this executable with "
        + "'swift build -c release --product ImageToolEngine' from the package's folder, "
        + "or, if you copied imgtool elsewhere, copy libImageToolEngine.so beside it\n")
    // Beside a debug build, the hint is the debug build's command.
    let debug = try lonelyLauncher(folderName: "debug")
    let inDebug = try runExecutable(["help"], program: debug)
    #expect(inDebug.status == 69)
    #expect(inDebug.err.contains("with 'swift build --product ImageToolEngine' from"))
  }

  @Test func anEngineThatIsNotALibraryIsRefusedByPath() throws {
    let launcher = try lonelyLauncher(engine: Data("not a library\n".utf8))
    let path = launcher.deletingLastPathComponent().appendingPathComponent(Self.engineName).path
    let result = try runExecutable(["help"], program: launcher)
    #expect(result.status == 69)
    #expect(result.err.hasPrefix("imgtool: cannot load the engine \(path): \(path): "))
    #expect(
      result.err.hasSuffix("; rebuild it with 'swift build -c release --product ImageToolEngine'\n")
    )
  }

  @Test func aLibraryWithoutTheEntryPointIsRefused() throws {
    let sepia = Paths.executable.deletingLastPathComponent()
      .appendingPathComponent("libSepiaPlugin.so")
    let launcher = try lonelyLauncher(engine: try Data(contentsOf: sepia))
    let path = launcher.deletingLastPathComponent().appendingPathComponent(Self.engineName).path
    let result = try runExecutable(["help"], program: launcher)
    #expect(result.status == 69)
    #expect(
      result.err
        == "imgtool: \(path) is not an imgtool engine (it has no imgtool_engine_main); "
        + "rebuild it with 'swift build -c release --product ImageToolEngine'\n")
  }

  @Test func aSymbolicLinkToTheLauncherFindsTheEngineBesideTheTarget() throws {
    let link = try Paths.temporaryFolder().appendingPathComponent("imgtool")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: Paths.executable)
    let result = try runExecutable(["info", Paths.bundled("rocket.jpg")], program: link)
    #expect(result.status == 0, "\(result.err)")
    #expect(result.out.hasPrefix("\(Paths.bundled("rocket.jpg")): 640x427, 3 bands"))
  }

  @Test func aPluginLoadsThroughTheLauncherAndTonesTheOutput() throws {
    let sepia = Paths.executable.deletingLastPathComponent()
      .appendingPathComponent("libSepiaPlugin.so").path
    let listed = try runExecutable(["--plugin", sepia, "processors"])
    #expect(listed.status == 0, "\(listed.err)")
    #expect(listed.out.contains("sepia(strength: number 0...1 = 1)"))
    let output = try Paths.temporaryFolder().appendingPathComponent("toned.png").path
    let applied = try runExecutable([
      "--plugin", sepia, "apply", "--pipeline", "fill | sepia", "--size", "40x30", "--style",
      "bgr32", Paths.bundled("coffee.png"), output,
    ])
    #expect(applied.status == 0, "\(applied.err)")
    let image = try VipsImage(file: output)
    #expect((image.width, image.height) == (40, 30))
    // The same fill without the plugin, and the sepia matrix applied to it by hand: the
    // plugin's output is that, within rounding (and clearly not the untoned fill).
    let plainPath = try Paths.temporaryFolder().appendingPathComponent("plain.png").path
    let plain = try runExecutable([
      "apply", "--pipeline", "fill", "--size", "40x30", "--style", "bgr32",
      Paths.bundled("coffee.png"), plainPath,
    ])
    #expect(plain.status == 0, "\(plain.err)")
    let untoned = try VipsImage(file: plainPath)
    for (x, y) in [(0, 0), (20, 15), (39, 29), (5, 25)] {
      let pixel: [Double] = try image.pixel(x: x, y: y).map { Double($0) }
      let before: [Double] = try untoned.pixel(x: x, y: y).map { Double($0) }
      let sepia: [[Double]] = [
        [0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131],
      ]
      for band in 0..<3 {
        let row = sepia[band]
        let toned: Double = min(255, row[0] * before[0] + row[1] * before[1] + row[2] * before[2])
        #expect(abs(pixel[band] - toned) <= 2, "\(x),\(y) band \(band): \(pixel[band]) vs \(toned)")
      }
      #expect(Array(pixel.prefix(3)) != Array(before.prefix(3)), "\(x),\(y) untoned")
    }
  }

  @Test func versionDoesNotLoadLibvipsAndAnImageCommandDoes() throws {
    let version = try runExecutableWatchingLibraries(["--version"])
    #expect(version.status == 0 && version.loaderLog.contains("calling init: /"))
    #expect(!loadsLibvips(version.loaderLog))
    let info = try runExecutableWatchingLibraries([
      "info", "--header-only", Paths.bundled("coffee.png"),
    ])
    #expect(info.status == 0, "\(info.err)")
    #expect(loadsLibvips(info.loaderLog))
  }

  // MARK: The engine's libraries loaded before it (issue 23)

  /// The loader's binding of every symbol (`LD_BIND_NOW`: all of them, not only those a
  /// run calls), as "file: symbol [version]" to the library that defines it, and the
  /// lines saying who loaded each library, from `imgtool help`.
  func loaderBindings(preloading: Bool) throws -> (
    bindings: [String: String], loadedBy: [String: String]
  ) {
    let run = try runExecutableWatchingLibraries(
      ["help"], debug: "bindings,files",
      environment: ["LD_BIND_NOW": "1", "IMGTOOL_PRELOAD": preloading ? "1" : "0"])
    #expect(run.status == 0, "\(run.err)")
    var bindings: [String: String] = [:]
    var loadedBy: [String: String] = [:]
    for line in run.loaderLog.split(separator: "\n") {
      // "binding file /a.so [0] to /b.so [0]: normal symbol `name' [VERSION]"
      if let binding = line.range(of: "binding file ") {
        // Paths may hold spaces: each ends at its " [namespace]".
        let rest = line[binding.upperBound...]
        guard let fileEnd = rest.range(of: " [0] to "),
          let targetEnd = rest[fileEnd.upperBound...].range(of: " [0]: ")
        else { continue }
        let file = rest[..<fileEnd.lowerBound]
        let target = rest[fileEnd.upperBound..<targetEnd.lowerBound]
        let symbol = rest[targetEnd.upperBound...]
        if Self.isGlibcUnwinderLookup(file: file, target: target, symbol: symbol) { continue }
        bindings["\(file): \(symbol)"] = String(target)
      } else if let file = line.range(of: "\tfile="), !line.contains("(relocation dependency)"),
        let by = line.range(of: "dynamically loaded by ") ?? line.range(of: "needed by ")
      {
        // "file=libz.so.1 [0];  needed by /lib/libpng16.so.16 [0]"
        let name = line[file.upperBound...].split(separator: " ")[0]
        loadedBy[String(name)] = String(line[by.lowerBound...])
      }
    }
    return (bindings, loadedBy)
  }

  /// Whether a binding is glibc's own lookup of libgcc_s's unwinder (`dlsym` on
  /// libgcc_s, in glibc's unwind-link.c), made the first time a thread of the process is
  /// cancelled or exits through `pthread_exit`, whenever that happens: in one of ten runs
  /// on a loaded machine, in either run (a CI run failed on it). Not a relocation of
  /// any library, the preload cannot move it.
  static func isGlibcUnwinderLookup(
    file: Substring, target: Substring, symbol: Substring
  ) -> Bool {
    let unwinder = [
      "_Unwind_Backtrace", "_Unwind_ForcedUnwind", "_Unwind_GetCFA", "_Unwind_GetIP",
      "_Unwind_Resume", "__gcc_personality_v0",
    ]
    return file == target && file.hasSuffix("/libgcc_s.so.1")
      && unwinder.contains { symbol == "normal symbol `\($0)'" }
  }

  /// The launcher loads the libraries that the engine's libraries need, and those but
  /// libvips, before the engine (each relocated in the scope of its own dependencies,
  /// which cuts the loader's symbol lookups); every symbol of every library still binds
  /// where it does without that, and the same libraries are loaded. The one exception:
  /// a C++ standard library template that a library instantiates itself (a weak
  /// definition of the same code in many libraries) may bind to the library's own copy
  /// rather than to the first other library's copy of the engine's long scope.
  @Test func preloadingTheEnginesLibrariesBindsEverySymbolWhereItDid() throws {
    let preloaded = try loaderBindings(preloading: true)
    let plain = try loaderBindings(preloading: false)
    #expect(preloaded.bindings.count > 10_000)
    let onlyPreloaded = Set(preloaded.bindings.keys).subtracting(plain.bindings.keys)
    let onlyPlain = Set(plain.bindings.keys).subtracting(preloaded.bindings.keys)
    let only = (preloaded: onlyPreloaded.sorted().prefix(5), plain: onlyPlain.sorted().prefix(5))
    #expect(
      onlyPreloaded.isEmpty && onlyPlain.isEmpty,
      "\(onlyPreloaded.count) bound with the preload only, \(onlyPlain.count) without: \(only)")
    let moved = preloaded.bindings.filter { plain.bindings[$0.key] != $0.value }
    for (reference, target) in moved {
      // "/lib/libLerc.so.4: normal symbol `_ZNSt6vectorIfSaIfEE17_M_default_appendEm'"
      let file = reference.prefix { $0 != ":" }
      let symbol = reference.split(separator: "`").last ?? ""
      let template = ["_ZNSt", "_ZNKSt", "_ZSt"].contains { symbol.hasPrefix($0) }
      #expect(
        template && target == file,
        "\(reference) binds to \(target), not \(plain.bindings[reference] ?? "nothing")")
    }
    #expect(Set(preloaded.loadedBy.keys) == Set(plain.loadedBy.keys))
    // The preloaded libraries are loaded by the launcher (as it `dlopen`s them) before
    // the engine; without, as the needs of the engine and its libraries.
    for name in ["libgobject-2.0.so.0", "liblcms2.so.2", "libcurl.so.4", "libcrypto.so.3"] {
      let launcher = try #require(preloaded.loadedBy[name], "\(name)")
      #expect(launcher.hasPrefix("dynamically loaded by \(Paths.executable.path) ["), "\(launcher)")
      let engine = try #require(plain.loadedBy[name], "\(name)")
      #expect(engine.hasPrefix("needed by "), "\(engine)")
    }
    // libvips is relocated with the engine ahead of it: the engine replaces its error
    // functions and its threadpool's run (ThreadErrors.c), which it must bind to.
    for run in [preloaded, plain] {
      let vips = try #require(run.loadedBy["libvips.so.42"])
      #expect(vips.hasPrefix("needed by ") && vips.contains(Self.engineName), "\(vips)")
    }
    for function in ["vips_error_freeze", "vips_verror", "vips_threadpool_run"] {
      let binding = try #require(
        preloaded.bindings.first {
          $0.key.contains("libvips.so.42: normal symbol `\(function)'")
        }, "\(function)")
      #expect(binding.value.hasSuffix(Self.engineName), "\(function): \(binding.value)")
    }
  }

  /// An engine cut short (a copy that stopped) is refused by path: shorter than its
  /// headers, in the loader's words; with its headers whole, in the launcher's, before
  /// the loader maps the missing pages and dies of SIGBUS (as it did). One cut just
  /// after its last loaded byte (only symbols for debuggers lost) still runs.
  @Test func anEngineCutShortIsRefusedByPath() throws {
    let engine = try Data(
      contentsOf: Paths.executable.deletingLastPathComponent()
        .appendingPathComponent(Self.engineName))
    func run(_ length: Int) throws -> (status: Int32, err: String, path: String) {
      let launcher = try lonelyLauncher(
        folderName: "cut-\(length)", engine: engine.prefix(length))
      let path = launcher.deletingLastPathComponent().appendingPathComponent(Self.engineName)
        .path
      let result = try runExecutable(["help"], program: launcher)
      return (result.status, result.err, path)
    }
    // Too short for the launcher to read its headers: the loader's own words.
    for (length, words) in [(4, "file too short"), (64, "cannot read file data")] {
      let result = try run(length)
      #expect(result.status == 69, "\(length): \(result.err)")
      #expect(
        result.err.hasPrefix(
          "imgtool: cannot load the engine \(result.path): \(result.path): \(words); "),
        "\(result.err)")
    }
    let cut = try run(4_096)
    let start =
      "imgtool: cannot load the engine \(cut.path): \(cut.path): the file is cut short "
      + "(4096 bytes, where its headers describe "
    let end = "); rebuild it with 'swift build -c release --product ImageToolEngine'\n"
    #expect(cut.status == 69)
    #expect(cut.err.hasPrefix(start) && cut.err.hasSuffix(end), "\(cut.err)")
    let described = try #require(
      Int(cut.err.dropFirst(start.count).dropLast(end.count)), "\(cut.err)")
    #expect(described > 1_000_000 && described <= engine.count)
    let short = try run(described - 1)
    #expect(short.status == 69)
    #expect(short.err.contains("(\(described - 1) bytes, where its headers describe \(described))"))
    let whole = try run(described)
    #expect(whole.status == 0, "\(whole.err)")
  }

  // MARK: An engine that is there but not for this user (issue 24)

  @Test func anEngineThisUserMayNotReadIsNotCalledMissing() async throws {
    try await withFolderEveryoneReads { work in
      let launcher = try copiedTool(into: work)
      let engine = launcher.deletingLastPathComponent().appendingPathComponent(Self.engineName)
      try FileManager.default.setAttributes([.posixPermissions: 0o200], ofItemAtPath: engine.path)
      let result = try runAsAnotherUser(["info", "x.jpg"], program: launcher)
      #expect(result.status == 69)
      #expect(result.out.isEmpty)
      let owner = userName(getuid())
      #expect(
        result.err
          == "imgtool: the engine \(engine.path) is there but cannot be read: its mode, 0200 "
          + "(owned by \(owner)), which does not let this user (\(anotherUser.name)) read it; "
          + "let this user in ('chmod a+r \(engine.path)', as \(owner)) or copy imgtool and "
          + "libImageToolEngine.so to a folder every user can read\n")
    }
  }

  /// The engine beside the launcher is a link into a folder this user may not enter (as
  /// a build folder in a clone under `/root` is for `nobody`): that folder is named.
  @Test func anEngineInAFolderThisUserMayNotEnterNamesTheFolder() async throws {
    try await withFolderEveryoneReads { work in
      let launcher = try copiedTool(into: work)
      let bin = launcher.deletingLastPathComponent()
      let closed = work.appendingPathComponent("closed")
      try FileManager.default.createDirectory(at: closed, withIntermediateDirectories: true)
      try FileManager.default.moveItem(
        at: bin.appendingPathComponent(Self.engineName),
        to: closed.appendingPathComponent(Self.engineName))
      try FileManager.default.createSymbolicLink(
        atPath: bin.appendingPathComponent(Self.engineName).path,
        withDestinationPath: "../closed/" + Self.engineName)
      // Root's 0700 keeps `nobody` out; another user's own folder needs 0000.
      let mode: Int = getuid() == 0 ? 0o700 : 0o000
      try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: closed.path)
      defer {
        try? FileManager.default.setAttributes(
          [.posixPermissions: 0o755], ofItemAtPath: closed.path)
      }
      let result = try runAsAnotherUser(["info", "x.jpg"], program: launcher)
      #expect(result.status == 69)
      let owner = userName(getuid())
      let path = bin.appendingPathComponent(Self.engineName).path
      #expect(
        result.err
          == "imgtool: the engine \(path) is there but cannot be read: the folder \(closed.path) "
          + "on its path, which this user (\(anotherUser.name)) may not enter (mode 0"
          + String(mode, radix: 8) + ", owned by \(owner)); let this user in ('chmod a+x "
          + "\(closed.path)', as \(owner)) or copy imgtool and libImageToolEngine.so to a folder "
          + "every user can read\n")
    }
  }

  // MARK: `swift run imgtool` in a fresh clone (issue 24)

  /// A package folder as a fresh clone's looks to the launcher after `swift run
  /// imgtool`: `.build/debug/imgtool` and no engine; and a `swift` on `PATH` that logs
  /// its arguments and, as SwiftPM would, puts the engine beside the launcher (or fails).
  private func freshClone(swiftExits status: Int) throws -> (launcher: URL, log: URL, path: String)
  {
    let root = try Paths.temporaryFolder().appendingPathComponent("clone")
      .resolvingSymlinksInPath()
    let debug = root.appendingPathComponent(".build/debug")
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("Sources/ImageToolEngine"),
      withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: debug, withIntermediateDirectories: true)
    try Data("// swift-tools-version: 6.0\n".utf8).write(
      to: root.appendingPathComponent("Package.swift"))
    let launcher = debug.appendingPathComponent("imgtool")
    try FileManager.default.copyItem(at: Paths.executable, to: launcher)
    let tools = root.deletingLastPathComponent().appendingPathComponent("tools")
    try FileManager.default.createDirectory(at: tools, withIntermediateDirectories: true)
    let log = tools.appendingPathComponent("swift.log")
    let engine = Paths.executable.deletingLastPathComponent().appendingPathComponent(
      Self.engineName)
    let script = """
      #!/bin/sh
      echo "$@" > \(log.path)
      echo "Building for debugging..."
      \(status == 0 ? "cp \(engine.path) \(debug.path)/" : "echo 'error: it broke' >&2")
      exit \(status)

      """
    let swift = tools.appendingPathComponent("swift")
    try Data(script.utf8).write(to: swift)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift.path)
    let path = tools.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    return (launcher, log, path)
  }

  @Test func inItsPackagesBuildFolderTheLauncherBuildsAMissingEngineOnce() throws {
    let clone = try freshClone(swiftExits: 0)
    let root = clone.launcher.deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().path
    var environment = ProcessInfo.processInfo.environment
    environment["PATH"] = clone.path
    let first = try runExecutable(
      ["info", Paths.bundled("rocket.jpg")], program: clone.launcher, environment: environment)
    #expect(first.status == 0, "\(first.err)")
    // SwiftPM's own lines go to standard error: standard output is the command's.
    #expect(first.out.hasPrefix("\(Paths.bundled("rocket.jpg")): 640x427, 3 bands"), "\(first.out)")
    #expect(
      first.err
        == "imgtool: the engine libImageToolEngine.so is not built yet ('swift run imgtool' "
        + "builds only the launcher); building it: swift build --package-path \(root) --product "
        + "ImageToolEngine\nBuilding for debugging...\n")
    #expect(
      try String(contentsOf: clone.log, encoding: .utf8)
        == "build --package-path \(root) --product ImageToolEngine\n")
    // Built: the next command loads it, with no build.
    try FileManager.default.removeItem(at: clone.log)
    let second = try runExecutable(
      ["info", Paths.bundled("rocket.jpg")], program: clone.launcher, environment: environment)
    #expect(second.status == 0 && second.err.isEmpty, "\(second.err)")
    #expect(!FileManager.default.fileExists(atPath: clone.log.path))
  }

  @Test func aFailedBuildOfTheEngineIsSaidWithItsCommand() throws {
    let clone = try freshClone(swiftExits: 1)
    let root = clone.launcher.deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().path
    var environment = ProcessInfo.processInfo.environment
    environment["PATH"] = clone.path
    let result = try runExecutable(["help"], program: clone.launcher, environment: environment)
    #expect(result.status == 69)
    #expect(result.out.isEmpty)
    let command = "swift build --package-path \(root) --product ImageToolEngine"
    #expect(
      result.err
        == "imgtool: the engine libImageToolEngine.so is not built yet ('swift run imgtool' "
        + "builds only the launcher); building it: \(command)\nBuilding for debugging...\n"
        + "error: it broke\nimgtool: could not build the engine with '\(command)': it exited "
        + "with status 1 (its errors are above)\n")
  }
}

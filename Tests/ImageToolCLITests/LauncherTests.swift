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

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
}

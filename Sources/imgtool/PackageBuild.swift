#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The package whose SwiftPM build folder the launcher runs from (`<package>/.build/
/// <triple>/debug`, or `release`), when that package is ImageTool's.
///
/// `swift run imgtool` builds the launcher's product only (its targets; a dynamic library
/// product of the same package is no dependency SwiftPM can give it), so in a fresh clone
/// the engine is not there yet: the launcher then builds it with SwiftPM, once, saying so
/// on standard error (SwiftPM's own lines too, so that standard output stays the
/// command's), and loads it.
struct PackageBuild {
  /// The package's folder (where `Package.swift` is).
  var root: String
  var release: Bool

  /// The package of a build folder, when `folder` is one of ImageTool's (a `.build`
  /// folder below a folder holding `Package.swift` and the engine's sources).
  init?(folder: String) {
    let components = folder.split(separator: "/", omittingEmptySubsequences: false)
    guard let last = components.last, last == "debug" || last == "release",
      let scratch = components.lastIndex(of: ".build")
    else { return nil }
    let root = components[..<scratch].joined(separator: "/")
    guard !root.isEmpty, access(root + "/Package.swift", F_OK) == 0,
      access(root + "/Sources/ImageToolEngine", F_OK) == 0
    else { return nil }
    self.root = root
    release = last == "release"
  }

  /// `swift build` of the engine's product, in the configuration of the folder.
  var arguments: [String] {
    ["swift", "build", "--package-path", root] + (release ? ["-c", "release"] : [])
      + ["--product", "ImageToolEngine"]
  }

  /// Builds the engine (SwiftPM's output on standard error), or says why it could not.
  func buildEngine() throws(EngineLoadError) {
    let command = arguments.joined(separator: " ")
    Self.say(
      "imgtool: the engine \(EngineLauncher.libraryName) is not built yet ('swift run "
        + "imgtool' builds only the launcher); building it: \(command)\n")
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO)
    var argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var child: pid_t = 0
    let started = posix_spawnp(&child, "swift", &actions, nil, &argv, environ)
    guard started == 0 else {
      throw .buildFailed(command: command, reason: "cannot start swift: \(Self.text(started))")
    }
    var status: Int32 = 0
    while waitpid(child, &status, 0) < 0, errno == EINTR {}
    let exited = status & 0x7f == 0
    guard exited, (status >> 8) & 0xff == 0 else {
      let reason =
        exited
        ? "it exited with status \((status >> 8) & 0xff) (its errors are above)"
        : "it ended on signal \(status & 0x7f)"
      throw .buildFailed(command: command, reason: reason)
    }
  }

  static func text(_ code: Int32) -> String { String(cString: strerror(code)) }

  static func say(_ line: String) {
    var line = line
    line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
  }
}

import Foundation
import ImageToolCLI
import Locking
import TestFixtures

/// A console that keeps what a command writes, for tests to read.
final class CapturedConsole: Sendable {
  private let lines = Lock<(out: [String], err: [String])>(([], []))

  var console: Console {
    Console(
      out: { line in self.lines.withLock { $0.out.append(line) } },
      err: { line in self.lines.withLock { $0.err.append(line) } })
  }

  var out: [String] { lines.withLock { $0.out } }
  var err: [String] { lines.withLock { $0.err } }
}

/// Runs `imgtool` in process with a captured console.
func runTool(_ arguments: [String]) async -> (status: Int32, out: [String], err: [String]) {
  let captured = CapturedConsole()
  let status = await ImageTool().run(arguments, console: captured.console)
  return (status, captured.out, captured.err)
}

enum Paths {
  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let bundledPhotos = packageRoot.appendingPathComponent("Examples/Photos")

  /// A photo kept in Tests/Fixtures (the same five are in Examples/Photos).
  static func bundled(_ name: String) -> String { Fixtures.photo(name) }

  /// The `imgtool` executable beside the test bundle.
  static let executable = URL(fileURLWithPath: CommandLine.arguments[0])
    .deletingLastPathComponent().appendingPathComponent("imgtool")

  static func temporaryFolder() throws -> URL { try Fixtures.temporaryFolder() }
}

/// Runs the built `imgtool` executable (or `program`) as a user would, in its own
/// process, with `environment` instead of this one's when given, and `standardInput`
/// as its standard input when given.
func runExecutable(
  _ arguments: [String], in folder: URL? = nil, program: URL = Paths.executable,
  environment: [String: String]? = nil, standardInput: Data? = nil
) throws -> (status: Int32, out: String, err: String) {
  let process = Process()
  process.executableURL = program
  process.arguments = arguments
  if let folder { process.currentDirectoryURL = folder }
  if let environment { process.environment = environment }
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  let input = standardInput.map { _ in Pipe() }
  if let input { process.standardInput = input }
  try process.run()
  if let input, let standardInput {
    input.fileHandleForWriting.write(standardInput)
    try input.fileHandleForWriting.close()
  }
  let outData = out.fileHandleForReading.readDataToEndOfFile()
  let errData = err.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (
    process.terminationStatus, String(decoding: outData, as: UTF8.self),
    String(decoding: errData, as: UTF8.self)
  )
}

/// Runs the built `imgtool` with the dynamic loader's `LD_DEBUG` log (`libs`, or what
/// `debug` names) written to a file (into a pipe it could fill and stall the child), and
/// returns that log too. `environment` is added to this process's.
func runExecutableWatchingLibraries(
  _ arguments: [String], debug: String = "libs", environment extra: [String: String] = [:]
) throws -> (status: Int32, out: String, err: String, loaderLog: String) {
  let folder = try Paths.temporaryFolder()
  var environment = ProcessInfo.processInfo.environment
  environment["LD_DEBUG"] = debug
  environment["LD_DEBUG_OUTPUT"] = folder.appendingPathComponent("ld").path
  environment.merge(extra) { _, added in added }
  let result = try runExecutable(arguments, environment: environment)
  // One file per process, `ld.PID`.
  let log = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    .filter { $0.hasPrefix("ld.") }
    .map { try String(contentsOfFile: folder.appendingPathComponent($0).path, encoding: .utf8) }
    .joined()
  return (result.status, result.out, result.err, log)
}

/// Whether a dynamic loader's log shows libvips loaded.
func loadsLibvips(_ loaderLog: String) -> Bool {
  loaderLog.split(separator: "\n").contains {
    $0.contains("calling init: /") && $0.contains("/libvips.so")
  }
}

/// A fresh folder holding copies of the named fixtures, and a cache path beside it.
func copiedPhotos(_ names: [String]) throws -> (photos: URL, cache: String) {
  let work = try Fixtures.temporaryFolder()
  let folder = work.appendingPathComponent("photos")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  for name in names {
    try FileManager.default.copyItem(
      atPath: Fixtures.path(name), toPath: folder.appendingPathComponent(name).path)
  }
  return (folder, work.appendingPathComponent("cache").path)
}

/// A new folder every user may enter and read, made under `/tmp` itself: the test
/// scratch folder (TMPDIR) and the build folder may sit in a folder only their owner
/// may enter (a clone under `/root`). Removed when `body` returns.
func withFolderEveryoneReads<T>(_ body: (URL) async throws -> T) async throws -> T {
  var template = Array("/tmp/imgtool-everyone-XXXXXX".utf8CString)
  guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
  let folder = URL(fileURLWithPath: String(cString: made))
  defer { try? FileManager.default.removeItem(at: folder) }
  try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
  return try await body(folder)
}

/// Copies of the built launcher and engine in `folder/bin`, which every user may run
/// (the engine's other libraries are the system's and the toolchain's, found by path).
func copiedTool(into folder: URL) throws -> URL {
  let bin = folder.appendingPathComponent("bin")
  try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
  for name in ["imgtool", "libImageToolEngine.so"] {
    let copy = bin.appendingPathComponent(name)
    try FileManager.default.copyItem(
      at: Paths.executable.deletingLastPathComponent().appendingPathComponent(name), to: copy)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy.path)
  }
  try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin.path)
  return bin.appendingPathComponent("imgtool")
}

/// Copies of the named fixtures in `folder/photos`, readable by every user.
func photosEveryoneReads(_ names: [String], in folder: URL) throws -> URL {
  let photos = folder.appendingPathComponent("photos")
  try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
  for name in names {
    let copy = photos.appendingPathComponent(name)
    try FileManager.default.copyItem(atPath: Fixtures.path(name), toPath: copy.path)
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy.path)
  }
  try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: photos.path)
  return photos
}

/// The user `runAsAnotherUser` runs as: `nobody` for root (who may read anything), else
/// this user, whom file modes bind as well.
var anotherUser: (id: uid_t, name: String) {
  getuid() == 0 ? (65534, "nobody") : (getuid(), userName(getuid()))
}

func userName(_ id: uid_t) -> String {
  getpwuid(id).flatMap { $0.pointee.pw_name.map { String(cString: $0) } } ?? "uid \(id)"
}

/// Runs `program` as ``anotherUser`` (through `setpriv` for root).
func runAsAnotherUser(_ arguments: [String], program: URL) throws -> (
  status: Int32, out: String, err: String
) {
  guard getuid() == 0 else { return try runExecutable(arguments, program: program) }
  return try runExecutable(
    ["--reuid=65534", "--regid=65534", "--clear-groups", program.path] + arguments,
    program: URL(fileURLWithPath: "/usr/bin/setpriv"))
}

/// Whether `text` starts with `prefix` and then a truncation's reason: "the image data
/// ends early (truncated)", then libvips's text in "(libvips: ...)" or, when the reason
/// is our own (from the file's bytes, or when another decode took libvips's shared error
/// buffer), after a colon.
func startsWithTruncation(_ text: String?, after prefix: String = "") -> Bool {
  guard let text else { return false }
  let head = prefix + "the image data ends early (truncated)"
  return (text.hasPrefix(head + " (libvips: ") && text.hasSuffix(")"))
    || text.hasPrefix(head + ": ")
}

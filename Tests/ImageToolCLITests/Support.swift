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

/// Runs the built `imgtool` with the dynamic loader's `LD_DEBUG=libs` log written to a
/// file (into a pipe it could fill and stall the child), and returns that log too.
func runExecutableWatchingLibraries(_ arguments: [String]) throws -> (
  status: Int32, out: String, err: String, loaderLog: String
) {
  let folder = try Paths.temporaryFolder()
  var environment = ProcessInfo.processInfo.environment
  environment["LD_DEBUG"] = "libs"
  environment["LD_DEBUG_OUTPUT"] = folder.appendingPathComponent("ld").path
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

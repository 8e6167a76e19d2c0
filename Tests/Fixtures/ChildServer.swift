import Foundation
import Locking

#if canImport(Glibc)
  import Glibc
#endif

/// A server process the tests start (nginx under `web/watchdog.py`, or
/// `web/misbehaving_server.py`) and that must not outlive them.
///
/// Its standard input is a pipe whose other end only this process holds: when the test
/// process ends in any way (a crash, a failed `#expect`, `kill -9`), the pipe closes and
/// the child stops itself. ``stop()`` sends SIGTERM too, closes the pipe and waits for the
/// child to exit (SIGKILL after 10 s).
final class ChildServer: Sendable {
  private struct State: @unchecked Sendable {
    // @unchecked: Process and FileHandle are only touched under the lock.
    var process: Process?
    var stdin: FileHandle?
  }
  private let state: Lock<State>
  /// The child's standard error, written to a file (a pipe nobody reads could fill).
  let errorLog: URL
  /// The read end of the child's standard output, when asked for.
  let output: FileHandle?

  /// Starts `executable` with `arguments`; `captureOutput` pipes its standard output to
  /// ``output``, else it goes to `/dev/null`.
  init(
    executable: URL, arguments: [String], errorLog: URL, captureOutput: Bool = false
  ) throws(WebFixtureError) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let stdin = Pipe()
    process.standardInput = stdin
    let stdout = captureOutput ? Pipe() : nil
    process.standardOutput = stdout ?? FileHandle.nullDevice
    guard FileManager.default.createFile(atPath: errorLog.path, contents: nil),
      let errors = FileHandle(forWritingAtPath: errorLog.path)
    else {
      throw .couldNotStart(
        program: executable.path, reason: "could not create its error log \(errorLog.path)")
    }
    process.standardError = errors
    do {
      try process.run()
    } catch {
      throw .couldNotStart(program: executable.path, reason: "\(error)")
    }
    try? errors.close()
    // Only the child keeps the read end of its stdin and the write end of its stdout.
    try? stdin.fileHandleForReading.close()
    try? stdout?.fileHandleForWriting.close()
    self.errorLog = errorLog
    self.output = stdout?.fileHandleForReading
    self.state = Lock(State(process: process, stdin: stdin.fileHandleForWriting))
  }

  /// Whether the child is still running.
  var isRunning: Bool { state.withLock { $0.process?.isRunning ?? false } }

  /// What the child wrote to its standard error so far.
  func errors() -> String {
    (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
  }

  /// The child's exit status once it has exited by itself (nil while it runs).
  var exitStatus: Int32? {
    state.withLock { state in
      guard let process = state.process, !process.isRunning else { return nil }
      return process.terminationStatus
    }
  }

  /// Sends SIGTERM, closes the child's stdin and waits until it has exited. Idempotent.
  func stop() {
    let taken = state.withLock { state -> State in
      defer { state = State() }
      return state
    }
    guard let process = taken.process else { return }
    if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    try? taken.stdin?.close()
    // Either ends it at once; should neither (a signal blocked, the pipe's end inherited
    // by another child), SIGKILL after 10 s rather than a wait without end.
    let deadline = ContinuousClock.now + .seconds(10)
    while process.isRunning && ContinuousClock.now < deadline { usleep(2_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    try? output?.close()
  }

  deinit { stop() }
}

/// The Python 3 the tests run their servers with: Debian's (Scripts/bootstrap installs
/// it), else the first `python3` on `PATH`.
enum Python {
  static func executable() throws(WebFixtureError) -> URL {
    var candidates = ["/usr/bin/python3"]
    for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
      candidates.append("\(folder)/python3")
    }
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) })
    else {
      throw .couldNotStart(
        program: "python3", reason: "no python3 in /usr/bin or on PATH; run Scripts/bootstrap")
    }
    return URL(fileURLWithPath: found)
  }

  /// A script kept in `Tests/Fixtures/web`.
  static func script(_ name: String) -> String {
    Fixtures.folder.appendingPathComponent("web/\(name)").path
  }
}

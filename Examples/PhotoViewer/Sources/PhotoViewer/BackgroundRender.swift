import Foundation

/// `imgtool render` of a folder into the viewer's cache, as a child process, with its
/// progress read from the lines it prints.
///
/// A child process and not the library's fill in this one: the render is then the
/// cache's one writer and this process never opens a table for writing, so the viewer
/// keeps its promise (read-only, no lock) whatever the render does; the render is
/// exactly the command line's (its ids, its up-to-date checks, its plugins, `--wait`
/// for a render already under way into that cache), its decodes and memory stay out of
/// the window's process, and a photo that crashes a decoder ends the render, not the
/// viewer. The viewer sees each entry as it is committed, through its read-only tables.
@MainActor
final class BackgroundRender {
  /// How far the render has come, from its `[done/total] photo: note` lines.
  struct Progress: Equatable {
    var done = 0
    var total = 0
    var failed = 0
    /// Photos past the family's `maximumCount`, which its tables cannot keep.
    var leftOut = 0
  }

  enum State: Equatable {
    /// Started; it has said nothing yet (it lists the folder, or opens the tables).
    case starting
    /// Another process is writing the cache: imgtool waits for it (`--wait`).
    case waiting
    case running(Progress)
    /// It exited 0.
    case finished(Progress)
    /// It exited with `status`; `message` is the last thing it said that was not a
    /// photo's progress.
    case failed(status: Int32, message: String, Progress)
  }

  let imgtool: URL
  let arguments: [String]
  private(set) var state = State.starting
  /// What the render said that was not a photo's progress, the latest last.
  private(set) var messages: [String] = []
  /// Called on the main actor whenever `state` changes.
  var didChange: () -> Void = {}
  private let process = Process()
  /// The child's standard error, kept for as long as its reader runs.
  private let output = Pipe()
  private var pending = Data()
  private var progress = Progress()
  private var exited: Int32?
  private var endOfOutput = false

  /// The command line of a render of `folder`'s photos in `family` into `cache`.
  static func arguments(folder: URL, cache: URL, family: String, manifest: String?) -> [String] {
    ["render", "--family", family, "--cache", cache.path, "--wait"]
      + (manifest.map { ["--manifest", $0] } ?? []) + [folder.path]
  }

  init(imgtool: URL, arguments: [String]) {
    self.imgtool = imgtool
    self.arguments = arguments
  }

  /// The imgtool to run: `$IMGTOOL`, else the one beside this program (a SwiftPM build
  /// folder holds both once both are built), else the first on `PATH`; with where it
  /// looked, for the error when there is none.
  static func locateImgtool(environment: [String: String], executable: URL) -> (
    found: URL?, looked: [String]
  ) {
    var candidates: [String] = []
    if let given = environment["IMGTOOL"], !given.isEmpty { candidates.append(given) }
    candidates.append(
      executable.resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("imgtool").path)
    for folder in (environment["PATH"] ?? "").split(separator: ":") where !folder.isEmpty {
      candidates.append(String(folder) + "/imgtool")
    }
    let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    return (found.map(URL.init(fileURLWithPath:)), candidates)
  }

  /// Starts the child; what it prints goes to this process's standard error as well (a
  /// person running the viewer from a terminal sees what the render said).
  func start() throws {
    process.executableURL = imgtool
    process.arguments = arguments
    let output = self.output
    process.standardError = output
    // Its summary says again what its lines said. (With the child's stdout on this
    // process's stderr, the end of the error pipe never came: BackgroundRenderTests hung.)
    process.standardOutput = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    process.terminationHandler = { [weak self] process in
      let status = process.terminationStatus
      DispatchQueue.main.async {
        MainActor.assumeIsolated { self?.exited(status) }
      }
    }
    try process.run()
    // Its output is read on a thread of its own with blocking reads: a FileHandle's
    // readabilityHandler (a dispatch source) crashed the viewer in libdispatch's event
    // loop now and then as the child ended.
    let reader = output.fileHandleForReading
    let thread = Thread { [weak self] in
      var buffer = [UInt8](repeating: 0, count: 1 << 16)
      while true {
        // What has come so far (FileHandle's reads wait for a whole count, or the end).
        var count: Int
        repeat {
          count = read(reader.fileDescriptor, &buffer, buffer.count)
        } while count < 0 && errno == EINTR
        let data = Data(buffer[0..<max(0, count)])
        // The main queue runs work in the order it was enqueued.
        DispatchQueue.main.async {
          MainActor.assumeIsolated { self?.received(data) }
        }
        if data.isEmpty { return }
      }
    }
    thread.name = "imgtool render output"
    thread.start()
  }

  /// Stops the render (the viewer is closing); the entries it committed stay, and the
  /// next render of the folder goes on from them.
  func stop() {
    if process.isRunning { process.terminate() }
  }

  var isRunning: Bool {
    switch state {
    case .starting, .waiting, .running: true
    case .finished, .failed: false
    }
  }

  /// What the window says about the render: nil once it finished with every photo.
  var statusText: String? {
    switch state {
    case .starting: return "rendering…"
    case .waiting: return "waiting for another render of this cache…"
    case .running(let progress):
      return "rendering \(progress.done) of \(progress.total)"
    case .finished(let progress):
      var notes: [String] = []
      if progress.failed > 0 { notes.append("\(progress.failed) failed") }
      if progress.leftOut > 0 {
        notes.append("\(progress.leftOut) left out: the family's tables keep fewer photos")
      }
      return notes.isEmpty
        ? nil : "rendered \(progress.done) photos; " + notes.joined(separator: "; ")
    case .failed(let status, let message, _):
      return "render failed (exit \(status)): \(message)"
    }
  }

  private func received(_ data: Data) {
    guard !data.isEmpty else {
      endOfOutput = true
      if !pending.isEmpty { line(String(decoding: pending, as: UTF8.self)) }
      pending = Data()
      finishIfDone()
      return
    }
    FileHandle.standardError.write(data)
    pending.append(data)
    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
      line(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
      pending = Data(pending[pending.index(after: newline)...])
    }
  }

  private func line(_ text: String) {
    if let parsed = Self.parse(text) {
      progress.done = parsed.done
      progress.total = parsed.total
      if parsed.note.hasPrefix("failed") { progress.failed += 1 }
      if parsed.note.hasPrefix("left out") { progress.leftOut += 1 }
      state = .running(progress)
    } else if !text.isEmpty {
      messages.append(text)
      if text.contains("another process is writing this cache") { state = .waiting }
    }
    didChange()
  }

  private func exited(_ status: Int32) {
    exited = status
    finishIfDone()
  }

  /// Once the child exited and its output ended.
  private func finishIfDone() {
    guard let status = exited, endOfOutput, isRunning else { return }
    state =
      status == 0
      ? .finished(progress)
      : .failed(status: status, message: messages.last ?? "no message", progress)
    didChange()
  }

  /// A progress line, `[3/12] photos/a.jpg: written`: (3, 12, "written").
  static func parse(_ line: String) -> (done: Int, total: Int, note: String)? {
    guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else { return nil }
    let counts = line[line.index(after: line.startIndex)..<close].split(separator: "/")
    guard counts.count == 2, let done = Int(counts[0]), let total = Int(counts[1]) else {
      return nil
    }
    let rest = line[line.index(after: close)...]
    let note = rest.range(of: ": ").map { String(rest[$0.upperBound...]) }
    return (done, total, note ?? "")
  }
}

import Foundation
import Testing

@testable import ImageTables

/// Links planted in the cache folder, file-size limits, and drawing out of bounds.
@Suite("File safety")
struct FileSafetyTests {
  static let limitRole = "IMAGETABLES_SIZE_LIMIT"
  static let outOfBoundsRole = "IMAGETABLES_OUT_OF_BOUNDS"

  @Test(arguments: ["table", "index", "shared", "lock"])
  func aSymbolicLinkInPlaceOfAFileIsRefused(kind: String) throws {
    let folder = try Folder.make()
    let format = makeFormat(maximumCount: 4)
    do {
      let table = try ImageTable(format: format, directory: folder)
      try writeEntry(table, "a")
    }
    let path = folder.appendingPathComponent("thumb.\(kind)").path
    let target = folder.appendingPathComponent("elsewhere").path
    _ = FileManager.default.createFile(atPath: target, contents: Data("keep me".utf8))
    try FileManager.default.removeItem(atPath: path)
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    #expect(throws: ImageTableError.symbolicLink(path: path)) {
      try ImageTable(format: format, directory: folder)
    }
    #expect(throws: ImageTableError.symbolicLink(path: path)) {
      try ImageTable(format: format, directory: folder, options: .init(readOnly: true))
    }
    #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me")
    #expect(
      ImageTableError.symbolicLink(path: path).description
        == "\(path): is a symbolic link; table files are never followed through links. "
        + "Remove the link (and check who planted it)")
  }

  /// Under a file-size limit (RLIMIT_FSIZE), growth fails with an error naming the
  /// file instead of a SIGXFSZ or a SIGBUS; what was written stays served, and the
  /// table takes writes again once a slot is free.
  @Test func aFileSizeLimitIsAnErrorAndTheTableStaysUsable() throws {
    if let folder = ProcessInfo.processInfo.environment[Self.limitRole] {
      try writeUnderALimit(folder: URL(fileURLWithPath: folder))
      return
    }
    let folder = try Folder.make()
    let child = try spawnSelf(
      filter: "aFileSizeLimitIsAnErrorAndTheTableStaysUsable",
      environment: [Self.limitRole: folder.path])
    child.waitUntilExit()
    #expect(child.terminationReason == .exit && child.terminationStatus == 0)
    let report = try String(contentsOfFile: folder.path + "/report", encoding: .utf8)
    let table = folder.appendingPathComponent("big.table").path
    #expect(
      report
        == "written 144; error: \(table): cannot grow to 169984 bytes: File too large; free disk "
        + "space or raise the file-size limit (the table stays usable at its present size); "
        + "all served right: true; after a delete: written")
  }

  private func writeUnderALimit(folder: URL) throws {
    var limit = rlimit(rlim_cur: 160_000, rlim_max: 160_000)
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else { exit(3) }
    let table = try ImageTable(
      format: makeFormat(name: "big", width: 16, height: 16, maximumCount: 300), directory: folder)
    var written = 0
    var failure = ""
    while written < 300 {
      do {
        try writeEntry(table, "e\(written)")
        written += 1
      } catch {
        failure = "\(error)"
        break
      }
    }
    let allRight = (0..<written).allSatisfy { number in
      table.bitmap(entityID: "e\(number)", sourceVersion: "v1").map(holdsExpectedPixels) ?? false
    }
    table.delete(entityID: "e0")
    let after = (try? writeEntry(table, "after")) != nil ? "written" : "failed"
    try
      "written \(written); error: \(failure); all served right: \(allRight); after a delete: \(after)"
      .write(toFile: folder.path + "/report", atomically: false, encoding: .utf8)
  }

  /// Drawing outside the canvas traps, in release builds too, instead of writing into
  /// the next entry.
  @Test(arguments: ["set", "row"])
  func drawingOutsideTheCanvasTraps(how: String) throws {
    if let folder = ProcessInfo.processInfo.environment[Self.outOfBoundsRole] {
      let table = try ImageTable(format: makeFormat(), directory: URL(fileURLWithPath: folder))
      try table.write(entityID: "a", sourceVersion: "v1") { canvas in
        if ProcessInfo.processInfo.environment["IMAGETABLES_HOW"] == "set" {
          canvas.set(x: 0, y: canvas.height, RGBA(1, 2, 3, 4))
        } else {
          _ = canvas.row(canvas.height)
        }
      }
      exit(0)
    }
    let folder = try Folder.make()
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = [
      "--testing-library", "swift-testing", "--filter", "drawingOutsideTheCanvasTraps",
    ]
    child.environment = ProcessInfo.processInfo.environment.merging([
      Self.outOfBoundsRole: folder.path, "IMAGETABLES_HOW": how,
    ]) { $1 }
    // Into a file, not a pipe: children other tests start at the same time inherit a
    // pipe's write end, and its end of file would wait for them.
    let errorsPath = folder.appendingPathComponent("stderr").path
    _ = FileManager.default.createFile(atPath: errorsPath, contents: nil)
    let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: errorsPath))
    child.standardOutput = FileHandle.nullDevice
    child.standardError = errors
    try child.run()
    child.waitUntilExit()
    try errors.close()
    let text = try String(contentsOfFile: errorsPath, encoding: .utf8)
    // It traps (under ThreadSanitizer the trap handler ends with exit code 66 instead).
    #expect(child.terminationReason == .uncaughtSignal || child.terminationStatus == 66)
    let expected =
      how == "set"
      ? "Precondition failed: (0, 8) is outside the 8x8 canvas"
      : "Precondition failed: row 8 is outside the canvas's 0..<8"
    #expect(text.contains(expected), "\(text.prefix(400))")
  }
}

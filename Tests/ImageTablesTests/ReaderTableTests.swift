import Foundation
import TestFixtures
import Testing

@testable import ImageTables

/// The reader table: sized from the open (`maxReaders`), many reader processes at once,
/// a writer that needs no reader record, and a refused reader told the limit.
@Suite("Reader table")
struct ReaderTableTests {
  static let format = makeFormat(name: "crowd", width: 16, height: 16, maximumCount: 64)

  /// Reader processes fill every record of a table made with `maxReaders` as many as
  /// they are; each is served its entry's bytes. Beside them, a writer (which gets no
  /// record) writes five new entries and serves them, one more reader is refused with
  /// the limit named, and once one reader is killed a new one is served in its record.
  /// `IMAGETABLES_READER_PROCESSES` sets how many (Benchmarks/scale/readers runs 1,024
  /// with imgtool itself).
  @Test func everyReaderProcessIsServedAndAWriterWritesBeside() async throws {
    let count =
      ProcessInfo.processInfo.environment["IMAGETABLES_READER_PROCESSES"].flatMap(Int.init) ?? 200
    let folder = try Folder.make()
    let tablePath = folder.appendingPathComponent("crowd.table").path
    var sums: [Int] = []
    do {
      let writer = try ImageTable(
        format: Self.format, directory: folder, options: .init(maxReaders: count))
      for number in 0..<10 {
        let bitmap = try writeEntry(writer, "e\(number)")
        sums.append(bitmap.bytes.reduce(0) { $0 + Int($1) })
      }
    }
    let readers = ReaderProcesses()
    defer { readers.killAll() }
    // Waiting for hundreds of processes blocks: on a thread of its own, not the pool's.
    let results = try await onOwnThread {
      for number in 0..<count {
        try readers.spawn(
          table: tablePath, result: folder.path + "/reader-\(number)",
          entity: ("e\(number % 10)", "v1"))
      }
      return try readers.results(folder: folder, count: count)
    }
    for (number, result) in results.enumerated() {
      #expect(result == "served 16x16 sum \(sums[number % 10])", "reader \(number)")
    }
    #expect(try sharedHeader(folder) == (version: 2, count: count, held: count))

    // The writer finds every record held and writes all the same; its Bitmaps are copies.
    let writer = try ImageTable(format: Self.format, directory: folder)
    for number in 10..<15 {
      let written = try writeEntry(writer, "e\(number)")
      #expect(holdsExpectedPixels(written))
      let hit = try #require(writer.bitmap(entityID: "e\(number)", sourceVersion: "v1"))
      #expect(holdsExpectedPixels(hit))
    }
    #expect(writer.verify().corrupt.isEmpty)

    let refused = try await onOwnThread {
      try readers.spawn(table: tablePath, result: folder.path + "/one-too-many")
      return try readers.results(folder: folder, names: ["one-too-many"])
    }
    #expect(
      refused == [
        "error \(folder.path)/crowd.shared: all \(count) reader records are held by live "
          + "processes (one per open table instance); close some readers, or raise maxReaders "
          + "(the manifest's \"maxReaders\", ImageTable.Options.maxReaders): a writer that opens "
          + "the table with more, while no reader has it open, makes its shared file anew with "
          + "that many"
      ])

    // A dead reader's record is reclaimed by the next claim that finds every one held.
    let after = try await onOwnThread {
      readers.kill(0)
      try readers.spawn(
        table: tablePath, result: folder.path + "/after-a-death", entity: ("e12", "v1"))
      return try readers.results(folder: folder, names: ["after-a-death"])
    }
    let expected = try #require(writer.bitmap(entityID: "e12", sourceVersion: "v1"))
    #expect(after == ["served 16x16 sum \(expected.bytes.reduce(0) { $0 + Int($1) })"])
  }

  /// A writer without a reader record serves copies: they keep their bytes while the
  /// writer evicts and reuses every slot, and a second reader is refused.
  @Test func aWriterWithoutARecordServesCopiesThatNeverChange() throws {
    let folder = try Folder.make()
    let format = makeFormat(name: "few", width: 8, height: 8, maximumCount: 4)
    do {
      let first = try ImageTable(format: format, directory: folder, options: .init(maxReaders: 1))
      try writeEntry(first, "a")
    }
    let reader = try ImageTable(format: format, directory: folder, options: .init(readOnly: true))
    let held = try #require(reader.bitmap(entityID: "a", sourceVersion: "v1"))
    let writer = try ImageTable(format: format, directory: folder)
    let copy = try #require(writer.bitmap(entityID: "a", sourceVersion: "v1"))
    let written = try writeEntry(writer, "b")
    let before = Array(written.bytes)
    for number in 0..<12 { try writeEntry(writer, "c\(number)") }
    #expect(Array(written.bytes) == before)
    #expect(holdsExpectedPixels(written) && holdsExpectedPixels(copy))
    // The reader's pin held "a" through the churn: a slot pinned in its record.
    #expect(holdsExpectedPixels(held))
    #expect(writer.bitmap(entityID: "b", sourceVersion: "v1") == nil)
    #expect(throws: ImageTableError.readerLimit(path: folder.path + "/few.shared", limit: 1)) {
      try ImageTable(format: format, directory: folder, options: .init(readOnly: true))
    }
  }

  /// `maxReaders` sizes the shared file when an open makes it; later opens keep the
  /// file's number while a reader holds a record, and a writer asking for more makes it
  /// anew once none does, keeping every entry. Out of range, the open fails.
  @Test func maxReadersSizesTheSharedFile() throws {
    let folder = try Folder.make()
    let format = makeFormat(name: "sized", maximumCount: 8)
    do {
      let table = try ImageTable(format: format, directory: folder, options: .init(maxReaders: 3))
      try writeEntry(table, "a")
    }
    #expect(try sharedHeader(folder, name: "sized").count == 3)
    do {
      let reader = try ImageTable(
        format: format, directory: folder, options: .init(readOnly: true))
      let writer = try ImageTable(format: format, directory: folder, options: .init(maxReaders: 9))
      #expect(try sharedHeader(folder, name: "sized").count == 3)
      #expect(reader.bitmap(entityID: "a", sourceVersion: "v1").map(holdsExpectedPixels) == true)
      writer.close()
    }
    let writer = try ImageTable(format: format, directory: folder, options: .init(maxReaders: 9))
    #expect(try sharedHeader(folder, name: "sized").count == 9)
    #expect(writer.bitmap(entityID: "a", sourceVersion: "v1").map(holdsExpectedPixels) == true)
    for value in [0, 65_537] {
      #expect(throws: ImageTableError.invalidMaxReaders(value)) {
        try ImageTable(format: format, directory: folder, options: .init(maxReaders: value))
      }
    }
    #expect(ImageTableError.invalidMaxReaders(0).description == "maxReaders 0 is outside 1...65536")
  }

  /// A shared file of layout version 1 (32 records, no high-water mark) is made anew
  /// by a writer, its entries kept; a reader of it is told of the new file.
  @Test func aVersionOneSharedFileIsReplaced() throws {
    let folder = try Folder.make()
    let format = makeFormat(name: "old", maximumCount: 8)
    do {
      let table = try ImageTable(format: format, directory: folder)
      try writeEntry(table, "a")
    }
    let path = folder.path + "/old.shared"
    let handle = try #require(FileHandle(forUpdatingAtPath: path))
    try handle.seek(toOffset: 8)
    try handle.write(contentsOf: withUnsafeBytes(of: UInt32(1).littleEndian) { Data($0) })
    try handle.close()
    let writer = try ImageTable(format: format, directory: folder)
    #expect(try sharedHeader(folder, name: "old").version == 2)
    #expect(writer.bitmap(entityID: "a", sourceVersion: "v1").map(holdsExpectedPixels) == true)
  }

  /// The shared file's header: layout version, reader records, and records held now.
  private func sharedHeader(_ folder: URL, name: String = "crowd") throws -> (
    version: UInt32, count: Int, held: Int
  ) {
    let data = try Data(contentsOf: folder.appendingPathComponent(name + ".shared"))
    func field<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
      data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }
    let used = Int(field(56, UInt64.self))
    let held = (0..<used).count {
      field(SharedFile.headerSize + $0 * SharedFile.readerRecordSize, UInt64.self) != 0
    }
    return (field(8, UInt32.self), Int(field(12, UInt32.self)), held)
  }
}

/// `table-reader` children (Tests/TableReader), started with posix_spawn (hundreds of
/// them: no Foundation.Process per child) and killed at the end.
final class ReaderProcesses: @unchecked Sendable {
  // Safety of @unchecked Sendable: used by one thread at a time, each handing over to
  // the next through onOwnThread's continuation.
  private var pids: [pid_t] = []
  static let program = URL(fileURLWithPath: CommandLine.arguments[0])
    .deletingLastPathComponent().appendingPathComponent("table-reader").path

  func spawn(table: String, result: String, entity: (String, String)? = nil) throws {
    var arguments = [Self.program, table, result]
    if let entity { arguments += [entity.0, entity.1] }
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let status = posix_spawn(&pid, Self.program, nil, nil, argv, environ)
    guard status == 0 else {
      throw ImageTableError.io(
        path: Self.program, operation: "posix_spawn", message: String(cString: strerror(status)))
    }
    pids.append(pid)
  }

  /// The result lines of `reader-0` ... `reader-<count - 1>`, waiting for them.
  func results(folder: URL, count: Int) throws -> [String] {
    try results(folder: folder, names: (0..<count).map { "reader-\($0)" })
  }

  func results(folder: URL, names: [String]) throws -> [String] {
    try names.map { name in
      let path = folder.path + "/" + name
      guard waitForFile(path, seconds: 120) else { return "\(name) wrote no result" }
      return try String(contentsOfFile: path, encoding: .utf8)
        .trimmingCharacters(in: .newlines)
    }
  }

  func kill(_ index: Int) {
    Glibc.kill(pids[index], SIGKILL)
    var status: Int32 = 0
    waitpid(pids[index], &status, 0)
    pids[index] = 0
  }

  func killAll() {
    for pid in pids where pid != 0 { Glibc.kill(pid, SIGKILL) }
    for pid in pids where pid != 0 {
      var status: Int32 = 0
      waitpid(pid, &status, 0)
    }
    pids = []
  }
}

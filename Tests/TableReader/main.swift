// table-reader: one reader process for the reader-table tests and the 1,024-reader
// script (Benchmarks/scale/readers). It opens an existing table read-only, as any
// reader would, through the public API only, looks one entry up (or verifies the table
// when no entry is named), writes what it got to a result file, and then holds the
// table and the Bitmap open until it is killed.
//
//     table-reader TABLE RESULT [ENTITY VERSION]
//
// The environment's TABLE_READER_MAX_READERS sets ImageTable.Options.maxReaders.
// Results: "served WxH sum S" (S the sum of the entry's bytes), "miss",
// "verified N entries, C corrupt", or "error DESCRIPTION".
import Foundation
import ImageTables

// First, every descriptor but standard input, output and error is closed. A reader
// lives until its test kills it, and it is spawned (posix_spawn, no file actions) while
// other tests run: it inherits every descriptor the test process had open, among them the
// sockets through which Foundation's Process sees its children end and the pipes of other
// tests' children. Held here, they made other tests wait for ever on children that had
// exited (zombies), and those waits held the threads this reader's test needed to kill it.
if let open = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
  for descriptor in open.compactMap(Int32.init) where descriptor > 2 { close(descriptor) }
}

let arguments = CommandLine.arguments
guard arguments.count == 3 || arguments.count == 5 else {
  FileHandle.standardError.write(Data("usage: table-reader TABLE RESULT [ENTITY VERSION]\n".utf8))
  exit(2)
}
var options = ImageTable.Options(readOnly: true)
if let value = ProcessInfo.processInfo.environment["TABLE_READER_MAX_READERS"].flatMap(Int.init) {
  options.maxReaders = value
}
var table: ImageTable?
var bitmap: Bitmap?
let result: String
do {
  let opened = try ImageTable(existingTableAt: arguments[1], options: options)
  table = opened
  if arguments.count == 5 {
    bitmap = opened.bitmap(entityID: arguments[3], sourceVersion: arguments[4])
    if let bitmap {
      let sum = bitmap.bytes.reduce(0) { $0 + Int($1) }
      result = "served \(bitmap.width)x\(bitmap.height) sum \(sum)"
    } else {
      result = "miss"
    }
  } else {
    let report = opened.verify()
    result = "verified \(report.checked) entries, \(report.corrupt.count) corrupt"
  }
} catch {
  result = "error \(error)"
}
let temporary = arguments[2] + ".partial"
do {
  try Data((result + "\n").utf8).write(to: URL(fileURLWithPath: temporary))
} catch {
  exit(3)
}
guard rename(temporary, arguments[2]) == 0 else { exit(3) }
withExtendedLifetime((table, bitmap)) {
  while true { pause() }
}

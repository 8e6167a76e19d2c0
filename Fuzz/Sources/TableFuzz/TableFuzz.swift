import Foundation
import ImageTables

/// One fuzz input: a 4-byte little-endian length, that many bytes of a `.table` file,
/// and the rest as its `.index` file. The harness opens them as `imgtool verify` and
/// `imgtool inspect` do, lists and serves every entry, and verifies them; any trap or
/// sanitizer report is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size >= 4 else { return 0 }
  let split = min(
    size - 4, Int(data[0]) | Int(data[1]) << 8 | Int(data[2]) << 16 | Int(data[3]) << 24)
  let folder = Folder.path
  let table = folder + "/fuzz.table"
  let index = folder + "/fuzz.index"
  unlink(folder + "/fuzz.shared")
  FileManager.default.createFile(
    atPath: table, contents: Data(bytes: data + 4, count: split))
  FileManager.default.createFile(
    atPath: index, contents: Data(bytes: data + 4 + split, count: size - 4 - split))
  guard let opened = try? ImageTable(existingTableAt: table) else { return 0 }
  for entry in opened.entries() {
    if let bitmap = opened.bitmap(entityID: entry.entityID, sourceVersion: entry.sourceVersion) {
      _ = bitmap.bytes.reduce(0, &+)
    }
  }
  _ = opened.verify()
  _ = opened.stats
  return 0
}

enum Folder {
  static let path: String = {
    let path = NSTemporaryDirectory() + "table-fuzz-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }()
}

/// SwiftPM links an executable's entry point as `<Target>_main`; here it hands over to
/// libFuzzer's driver (linked by `-sanitize=fuzzer`).
@_cdecl("TableFuzz_main")
public func tableFuzzMain(
  _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
  var count = argc
  var arguments = argv
  return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzOneInput(data, size) }
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
  _ argc: UnsafeMutablePointer<Int32>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32
) -> Int32

// compare-caches A B: whether two caches hold the same entries, byte for byte: the same
// formats with the same fingerprints, the same entities at the same source versions and
// sizes, and the same bytes in every entry. For checking a sharded render and its merge
// against one render (CI does, after the Slurm job array). Exit status: 0 when they are
// the same, 1 naming each difference (or a cache that cannot be read), 64 on misuse.
import Foundation
import ImageTables

/// One cache's tables, opened read-only, by format name.
func tables(in folder: String) throws -> [String: ImageTable] {
  var tables: [String: ImageTable] = [:]
  for path in try ImageTable.tableFiles(in: URL(fileURLWithPath: folder)) {
    let table = try ImageTable(existingTableAt: path)
    tables[table.format.name] = table
  }
  return tables
}

/// The differences between the caches `left` and `right`, in words.
func differences(_ left: String, _ right: String) throws -> (entries: Int, found: [String]) {
  let mine = try tables(in: left)
  let theirs = try tables(in: right)
  var found: [String] = []
  var entries = 0
  for name in Set(mine.keys).symmetricDifference(theirs.keys).sorted() {
    found.append("format '\(name)' is only in \(mine[name] == nil ? right : left)")
  }
  for (name, a) in mine.sorted(by: { $0.key < $1.key }) {
    guard let b = theirs[name] else { continue }
    if a.fingerprint != b.fingerprint {
      let fields = a.fingerprint.changedFields(from: b.fingerprint).joined(separator: ", ")
      found.append("format '\(name)' differs in \(fields)")
      continue
    }
    let aEntries = Dictionary(uniqueKeysWithValues: a.entries().map { ($0.entityID, $0) })
    let bEntries = Dictionary(uniqueKeysWithValues: b.entries().map { ($0.entityID, $0) })
    for id in Set(aEntries.keys).symmetricDifference(bEntries.keys).sorted() {
      found.append("\(name): entity '\(id)' is only in \(aEntries[id] == nil ? right : left)")
    }
    for (id, entry) in aEntries.sorted(by: { $0.key < $1.key }) {
      guard let other = bEntries[id] else { continue }
      entries += 1
      guard entry.sourceVersion == other.sourceVersion else {
        found.append(
          "\(name): entity '\(id)' is at version \(entry.sourceVersion) and \(other.sourceVersion)")
        continue
      }
      guard let x = a.bitmap(entityID: id, sourceVersion: entry.sourceVersion),
        let y = b.bitmap(entityID: id, sourceVersion: other.sourceVersion)
      else {
        found.append("\(name): entity '\(id)' does not verify in one of them")
        continue
      }
      if (x.width, x.height) != (y.width, y.height) {
        found.append("\(name): entity '\(id)' is \(x.width)x\(x.height) and \(y.width)x\(y.height)")
      } else if let byte = x.bytes.indices.first(where: { x.bytes[$0] != y.bytes[$0] }) {
        found.append("\(name): entity '\(id)': the bytes differ from byte \(byte) on")
      }
    }
  }
  return (entries, found)
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2, let left = arguments.first, let right = arguments.last else {
  FileHandle.standardError.write(Data("usage: compare-caches CACHE-DIR CACHE-DIR\n".utf8))
  exit(64)
}
do {
  let (entries, found) = try differences(left, right)
  if found.isEmpty {
    print("compare-caches: the same: \(entries) entries, byte for byte")
    exit(0)
  }
  found.prefix(50).forEach { print("compare-caches: \($0)") }
  if found.count > 50 { print("compare-caches: and \(found.count - 50) more differences") }
  exit(1)
} catch {
  print("compare-caches: \(error)")
  exit(1)
}

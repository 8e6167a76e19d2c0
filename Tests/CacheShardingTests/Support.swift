import Foundation
import ImageTables
import TestFixtures
import Testing

enum Folder {
  /// A new empty folder for one test, removed when the test process ends.
  static func make() throws -> URL { try Fixtures.temporaryFolder() }
}

func makeFormat(
  _ name: String, width: Int = 6, height: Int = 5, maximumCount: Int = 50,
  pipeline: String = "fill"
) -> ImageFormat {
  try! ImageFormat(
    name: name, family: "test", width: width, height: height, scale: 1, style: .bgra32,
    maximumCount: maximumCount, pipeline: pipeline)
}

/// The pixel at (x, y) of an entry: from its id and version alone.
func expectedPixel(_ entityID: String, _ version: String, x: Int, y: Int) -> RGBA {
  let seed = Checksum.hash(entityID + "\u{0}" + version)
  return RGBA(
    UInt8(truncatingIfNeeded: seed &+ UInt64(x * 7 + y * 13)),
    UInt8(truncatingIfNeeded: (seed >> 8) &+ UInt64(x)),
    UInt8(truncatingIfNeeded: (seed >> 16) &+ UInt64(y)), UInt8(truncatingIfNeeded: seed >> 24))
}

/// A cache folder with a table of each format holding `entries` (id, version), each
/// drawn smaller than the slot when its id says so, to carry sizes through.
@discardableResult
func makeCache(
  _ folder: URL, formats: [ImageFormat], entries: [(String, String)],
  processors: [String] = ["fill@1"]
) throws -> URL {
  for format in formats {
    let table = try ImageTable(format: format, processorIdentifiers: processors, directory: folder)
    for (id, version) in entries {
      let width = id.hasPrefix("small") ? 3 : format.pixelWidth
      try table.write(entityID: id, sourceVersion: version, width: width) { canvas in
        for y in 0..<canvas.height {
          for x in 0..<canvas.width {
            canvas.set(x: x, y: y, expectedPixel(id, version, x: x, y: y))
          }
        }
      }
    }
  }
  return folder
}

/// Every entry of every table in a cache: format -> entity -> (version, size, bytes).
struct CacheContents: Equatable {
  struct Entry: Equatable {
    var version: String
    var width: Int
    var height: Int
    var bytes: [UInt8]
  }
  var tables: [String: [String: Entry]] = [:]

  init(_ folder: URL) throws {
    for path in try ImageTable.tableFiles(in: folder) {
      let table = try ImageTable(existingTableAt: path)
      var entries: [String: Entry] = [:]
      for entry in table.entries() {
        let bitmap = try #require(
          table.bitmap(entityID: entry.entityID, sourceVersion: entry.sourceVersion))
        entries[entry.entityID] = Entry(
          version: entry.sourceVersion, width: bitmap.width, height: bitmap.height,
          bytes: Array(bitmap.bytes))
      }
      tables[table.format.name] = entries
    }
  }
}

/// Every file in a folder with its bytes, to show a folder did not change.
func snapshot(_ folder: URL) throws -> [String: Data] {
  var files: [String: Data] = [:]
  for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
    files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
  }
  return files
}

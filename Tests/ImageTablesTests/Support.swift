import Foundation
import Synchronization
import TestFixtures
import Testing

@testable import ImageTables

enum Folder {
  /// A new empty folder for one test's tables.
  static func make() throws -> URL { try Fixtures.temporaryFolder() }
}

/// Collects a table's reports.
final class EventLog: Sendable {
  private let events = TableLock<[ImageTableEvent]>([])
  var report: @Sendable (ImageTableEvent) -> Void {
    { event in self.events.withLock { $0.append(event) } }
  }
  var all: [ImageTableEvent] { events.withLock { $0 } }
}

func makeFormat(
  name: String = "thumb", width: Int = 8, height: Int = 8, scale: Int = 1,
  style: PixelStyle = .bgra32, maximumCount: Int = 100,
  protection: ProtectionMode = .none, pipeline: String = "fill"
) -> ImageFormat {
  try! ImageFormat(
    name: name, family: "test", width: width, height: height, scale: scale, style: style,
    maximumCount: maximumCount, protectionMode: protection, pipeline: pipeline)
}

/// The pixel every test writes at (x, y) for an entry: derived from its id and
/// version alone, so a reader can tell exactly what should be there.
func expectedPixel(entityID: String, sourceVersion: String, x: Int, y: Int) -> RGBA {
  let seed = Checksum.hash(entityID + "\u{0}" + sourceVersion)
  return RGBA(
    UInt8(truncatingIfNeeded: seed &+ UInt64(x * 7 + y * 13)),
    UInt8(truncatingIfNeeded: (seed >> 8) &+ UInt64(x)),
    UInt8(truncatingIfNeeded: (seed >> 16) &+ UInt64(y)), 255)
}

@discardableResult
func writeEntry(
  _ table: ImageTable, _ entityID: String, _ sourceVersion: String = "v1", width: Int? = nil,
  height: Int? = nil
) throws -> Bitmap {
  try table.write(entityID: entityID, sourceVersion: sourceVersion, width: width, height: height) {
    canvas in
    for y in 0..<canvas.height {
      for x in 0..<canvas.width {
        canvas.set(
          x: x, y: y, expectedPixel(entityID: entityID, sourceVersion: sourceVersion, x: x, y: y))
      }
    }
  }
}

/// Whether every pixel of `bitmap` is what ``writeEntry`` wrote for its key.
func holdsExpectedPixels(_ bitmap: Bitmap) -> Bool {
  for y in 0..<bitmap.height {
    for x in 0..<bitmap.width
    where bitmap.pixel(x: x, y: y)
      != expectedPixel(entityID: bitmap.entityID, sourceVersion: bitmap.sourceVersion, x: x, y: y)
    {
      return false
    }
  }
  return true
}

/// Runs this test binary again in a child process, running only `filter`, with
/// `environment` added: how tests get a second process.
func spawnSelf(filter: String, environment: [String: String]) throws -> Process {
  let child = Process()
  child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
  child.arguments = ["--testing-library", "swift-testing", "--filter", filter]
  child.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  child.standardOutput = FileHandle.nullDevice
  child.standardError = FileHandle.nullDevice
  try child.run()
  return child
}

/// Waits up to `seconds` for a file to appear.
func waitForFile(_ path: String, seconds: Double = 30) -> Bool {
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline {
    if FileManager.default.fileExists(atPath: path) { return true }
    usleep(5_000)
  }
  return false
}

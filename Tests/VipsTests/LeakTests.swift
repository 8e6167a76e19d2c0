import Foundation
import TestFixtures
import Testing

@testable import Vips

/// Proves that every libvips object an operation makes is released with its `VipsImage`.
///
/// libvips counts objects for the whole process, and other tests run in parallel, so
/// the count is taken in a child process that runs only this suite.
@Suite("Leaks")
struct LeakTests {
  static let probeVariable = "IMAGETOOL_LEAK_PROBE"
  static let isProbe = ProcessInfo.processInfo.environment[probeVariable] == "1"

  @Test func everyObjectIsReleased() throws {
    if Self.isProbe {
      try measure()
    } else {
      try runProbeInChildProcess()
    }
  }

  /// Runs many operations, good and failing, and checks the live count comes back.
  private func measure() throws {
    func workload() throws {
      let photo = try VipsImage.thumbnail(
        file: Fixtures.photo("chelsea.png"), width: 96, height: 96,
        options: .init(crop: .attention))
      let disc = try VipsImage.roundedRectangleMask(width: 96, height: 96, radius: 48)
      let round = try photo.masked(by: disc).bordered(
        width: 2, color: [255, 255, 255, 255], cornerRadius: 48)
      _ = try round.premultiplied().castToUInt8().writePixels()
      _ = try photo.resized(scale: 0.5).blurred(sigma: 1).sharpened().pngData()
      _ = try photo.toGreyscale().jpegData()
      _ = try VipsImage.grid([photo, photo.rotated(quarterTurns: 1)], across: 2).webpData()
      _ = try photo.overlaid(with: VipsImage.text("leak", font: "sans 10").tagged(as: .bw))
        .average()
      let bytes = try photo.pngData()
      _ = try VipsImage.thumbnail(bytes: bytes, width: 32).writePixels()
      _ = try? VipsImage.thumbnail(file: "/nonexistent.jpg", width: 10)
      _ = try? VipsImage.thumbnail(bytes: Array("not an image".utf8), width: 10)
      _ = try? photo.cropped(left: 90, top: 90, width: 20, height: 20)
    }
    try workload()  // first use starts libvips's lazily made singletons
    let before = Vips.liveObjectCount
    for _ in 0..<20 { try workload() }
    #expect(Vips.liveObjectCount == before, "libvips objects alive before: \(before)")
  }

  private func runProbeInChildProcess() throws {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = ["--testing-library", "swift-testing", "--filter", "LeakTests"]
    child.environment = ProcessInfo.processInfo.environment.merging([Self.probeVariable: "1"]) {
      $1
    }
    let output = Pipe()
    child.standardOutput = output
    child.standardError = output
    try child.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    child.waitUntilExit()
    #expect(child.terminationStatus == 0, "the leak probe failed:\n\(text)")
    #expect(text.contains("everyObjectIsReleased() passed"), "the probe did not run:\n\(text)")
  }
}

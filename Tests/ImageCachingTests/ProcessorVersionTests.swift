import Foundation
import ImageProcessing
import ImageTables
import Testing
import Vips

@testable import ImageCaching

/// A processor whose `identifier` is a constant, as a hurried user writes one: every
/// pixel becomes `level` (version 1) or `255 - level` (version 2).
private struct Shade: ImageProcessor {
  let level: Double
  let version: Int
  var identifier: String { "shade" }
  func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
    let value = version == 1 ? level : 255 - level
    return try image.toSRGB().extractingBands(0, count: 3).linear(
      [0, 0, 0], [value, value, value], clampToUInt8: true)
  }
}

private func registry(shadeVersion version: Int) throws -> ProcessorRegistry {
  let registry = ProcessorRegistry.withBuiltIns()
  try registry.register(
    ProcessorDefinition(
      name: "shade", version: version, summary: "Every pixel one level.",
      parameters: [.init("level", .number(0...255), "the level")]
    ) { arguments in Shade(level: arguments.number("level"), version: version) })
  return registry
}

/// The tables' reports, kept behind a lock ThreadSanitizer understands.
private final class Reports: @unchecked Sendable {
  // Safety of @unchecked Sendable: `events` is only touched under `lock`.
  private let lock = NSLock()
  private var events: [ImageTableEvent] = []
  var report: @Sendable (ImageTableEvent) -> Void {
    { event in self.lock.withLock { self.events.append(event) } }
  }
  var all: [ImageTableEvent] { lock.withLock { events } }
}

@Suite("Processor versions reach the fingerprint")
struct ProcessorVersionTests {
  private func cache(_ folder: URL, version: Int, level: Int, reports: Reports) throws
    -> ImageCache
  {
    let format = try ImageFormat(
      name: "shaded", width: 8, height: 8, style: .bgr32, maximumCount: 10,
      pipeline: "fill | shade(level: \(level))")
    return try ImageCache(
      configuration: CacheConfiguration(
        directory: folder, formats: [format], registry: registry(shadeVersion: version),
        workers: 1, report: reports.report))
  }

  @Test func raisingTheDefinitionVersionRerendersWithTheNewPixels() async throws {
    let folder = try Photos.temporaryFolder()
    let photo = entity("coffee.png")
    do {
      let first = try cache(folder, version: 1, level: 60, reports: Reports())
      let bitmap = try await first.image(for: photo, format: "shaded")
      #expect(bitmap.pixel(x: 3, y: 3) == RGBA(60, 60, 60, 255))
      await first.waitForFills()
    }
    // The same spec, the same constant identifier, version 2 registered: re-rendered.
    do {
      let reports = Reports()
      let second = try cache(folder, version: 2, level: 60, reports: reports)
      #expect(reports.all == [.invalidated(format: "shaded", changedFields: ["processors"])])
      #expect(second.cachedImage(for: photo, format: "shaded") == nil)
      let bitmap = try await second.image(for: photo, format: "shaded")
      #expect(bitmap.pixel(x: 3, y: 3) == RGBA(195, 195, 195, 255))
      #expect(
        second.table(format: "shaded")?.fingerprint["processors"]
          == "fill@2(crop: centre) | shade@2(level: 60) + shade")
      await second.waitForFills()
    }
    // Opened again at version 2: nothing to report, the entry stays.
    let quiet = Reports()
    let third = try cache(folder, version: 2, level: 60, reports: quiet)
    #expect(quiet.all.isEmpty)
    #expect(
      third.cachedImage(for: photo, format: "shaded")?.pixel(x: 0, y: 0) == RGBA(195, 195, 195, 255)
    )
  }

  @Test func aConstantIdentifierStillChangesTheFingerprintWhenArgumentsChange() throws {
    let registry = try registry(shadeVersion: 1)
    let low = try registry.pipeline("shade(level: 60)")
    let high = try registry.pipeline("shade(level: 61)")
    #expect(low.processors.map(\.identifier) == high.processors.map(\.identifier))
    #expect(low.identifiers == ["shade@1(level: 60) + shade"])
    #expect(high.identifiers == ["shade@1(level: 61) + shade"])
    let format = try ImageFormat(name: "f", width: 8, height: 8)
    let changed = format.fingerprint(processorIdentifiers: high.identifiers)
      .changedPixelFields(from: format.fingerprint(processorIdentifiers: low.identifiers))
    #expect(changed == ["processors"])
  }

  @Test func builtInIdentifiersAreRecordedAsBefore() throws {
    // A built-in's identifier is its arguments' identifier: the recorded text is the one
    // tables were written with, so they are not invalidated by this change.
    let pipeline = try ProcessorRegistry.withBuiltIns().pipeline("fill(crop: attention) | circle")
    #expect(pipeline.identifiers == pipeline.processors.map(\.identifier))
    #expect(pipeline.identifiers == ["fill@2(crop: attention)", "circle@1"])
  }
}

import Foundation
import ImageTables
import Testing
import Vips

@testable import ImageProcessing

/// The Swift example plugin (Examples/CustomProcessor/InvertPlugin, through
/// ImageToolPluginKit), built by SwiftPM beside the tests and loaded as imgtool loads it.
@Suite("Swift plugins")
struct SwiftPluginTests {
  static let invertPath = URL(fileURLWithPath: CommandLine.arguments[0])
    .deletingLastPathComponent().appendingPathComponent("libInvertPlugin.so").path

  @Test func itRegistersItsDefinitionThroughTheCInterface() throws {
    #expect(
      FileManager.default.fileExists(atPath: Self.invertPath),
      "build it: swift build --product InvertPlugin")
    let registry = ProcessorRegistry.withBuiltIns()
    #expect(try PluginLoader.load(path: Self.invertPath, into: registry) == ["invert"])
    let definition = try #require(registry.definition(named: "invert"))
    #expect(definition.signature == "invert(amount: number 0...1 = 1)")
    #expect(definition.version == 1)
    #expect(definition.summary.hasPrefix("Mix towards the negative"))
    #expect(definition.parameters.first?.summary.hasPrefix("How far towards the negative") == true)
    // The host checks its arguments like any other processor's.
    #expect(throws: PipelineError.self) { try registry.pipeline("invert(amount: 2)") }
    #expect(try registry.pipeline("invert(amount: 0.25)").identifier == "invert@1(amount: 0.25)")
  }

  /// Known samples, alpha kept: x + amount x (255 - 2x), rounded, against libvips's
  /// own linear on the same samples.
  @Test func itsPixelsAreLibvipsLinearOnTheColourBands() throws {
    let registry = ProcessorRegistry.withBuiltIns()
    try PluginLoader.loadOnce(path: Self.invertPath, into: registry)
    let samples: [UInt8] = [0, 100, 255, 128, 10, 200, 30, 0, 255, 255, 255, 255]
    let image = try VipsImage(pixels: samples, width: 3, height: 1, bands: 4)
    let full = try registry.pipeline("invert").process(image, context: context(3, 1))
    #expect((full.width, full.height, full.bands) == (3, 1, 4))
    #expect(
      try full.writePixels() == [255, 155, 0, 128, 245, 55, 225, 0, 0, 0, 0, 255])
    for amount in [0, 0.25, 0.5, 1] {
      let made = try registry.pipeline("invert(amount: \(amount))").process(
        image, context: context(3, 1))
      let colour = try image.extractingBands(0, count: 3).linear(
        Array(repeating: 1 - 2 * amount, count: 3),
        Array(repeating: 255 * amount + 0.5, count: 3), clampToUInt8: true)
      let reference = try colour.joiningBands(image.extractingBands(3))
      #expect(try made.writePixels() == reference.writePixels(), "amount \(amount)")
    }
  }

  /// On a real photo after a resample: an image from the host's decode, through the
  /// plugin's own Vips types, back to the host's pipeline (a circle mask after it).
  @Test func itRunsInsideAHostPipeline() throws {
    let registry = ProcessorRegistry.withBuiltIns()
    try PluginLoader.loadOnce(path: Self.invertPath, into: registry)
    let photo = try SourceDecoder.decode(
      file: Photos.bundled("rocket.jpg"), covering: [.init(width: 40, height: 40)])
    let plain = try registry.pipeline("fill").process(photo, context: context(40, 40))
    let inverted = try registry.pipeline("fill | invert").process(photo, context: context(40, 40))
    let reference = try plain.toSRGB().extractingBands(0, count: 3)
      .linear([-1, -1, -1], [255.5, 255.5, 255.5], clampToUInt8: true)
    #expect(try inverted.extractingBands(0, count: 3).writePixels() == reference.writePixels())
    let masked = try registry.pipeline("fill | invert | circle").process(
      photo, context: context(40, 40))
    #expect((masked.width, masked.height, masked.bands) == (40, 40, 4))
    #expect(try masked.pixel(x: 0, y: 0)[3] == 0)
  }

  @Test func loadingItTwiceSaysTheNameIsTaken() throws {
    let registry = ProcessorRegistry.withBuiltIns()
    try PluginLoader.load(path: Self.invertPath, into: registry)
    #expect(
      throws: PluginError.registrationFailed(
        path: Self.invertPath,
        message:
          "processor 'invert': a processor named 'invert' is already registered; pass replacing: true to replace it"
      )
    ) {
      try PluginLoader.load(path: Self.invertPath, into: registry)
    }
  }

  /// A name the host has already (a processor the app registered itself) refuses the
  /// plugin's, and the plugin's registration stops there.
  @Test func aNameTheHostHasAlreadyIsRefused() throws {
    let registry = ProcessorRegistry.withBuiltIns()
    try registry.register(
      ProcessorDefinition(name: "invert", summary: "The app's own.") { _ in Identity() })
    #expect(
      throws: PluginError.registrationFailed(
        path: Self.invertPath,
        message:
          "processor 'invert': a processor named 'invert' is already registered; pass replacing: true to replace it"
      )
    ) {
      try PluginLoader.load(path: Self.invertPath, into: registry)
    }
    #expect(registry.definition(named: "invert")?.summary == "The app's own.")
  }

  /// A Swift library built without the two entry points (the engine imgtool loads):
  /// the host's typed error, naming the symbol.
  @Test func aSwiftLibraryWithoutTheEntryPointsSaysSo() throws {
    let engine = URL(fileURLWithPath: Self.invertPath).deletingLastPathComponent()
      .appendingPathComponent("libImageToolEngine.so").path
    #expect(
      throws: PluginError.missingEntryPoint(path: engine, symbol: "imagetool_plugin_abi_version")
    ) {
      try PluginLoader.load(path: engine, into: ProcessorRegistry())
    }
  }

  /// The plugin cut short (a copy that stopped part way): it cannot be loaded, and
  /// nothing is registered.
  @Test func aDamagedCopyCannotBeLoaded() throws {
    let path = try Photos.temporaryFolder().appendingPathComponent("libInvertCut.so").path
    let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.invertPath))
    try bytes.prefix(4096).write(to: URL(fileURLWithPath: path))
    let registry = ProcessorRegistry.withBuiltIns()
    do {
      try PluginLoader.load(path: path, into: registry)
      Issue.record("a cut copy loaded")
    } catch {
      guard case .notLoadable(let failedPath, _) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(failedPath == path)
      // Said before dlopen maps it: mapped, the missing pages would kill the process
      // with SIGBUS.
      let head =
        "plugin \(path): cannot be loaded as a shared library: the file is cut short "
        + "(4096 bytes, a segment it loads ends at byte "
      let tail = "); was it copied or built completely?"
      let text = error.description
      #expect(text.hasPrefix(head) && text.hasSuffix(tail), "\(text)")
      let end = UInt64(text.dropFirst(head.count).dropLast(tail.count))
      #expect(end.map { $0 > 4096 && $0 <= UInt64(bytes.count) } == true, "\(text)")
    }
    #expect(registry.definition(named: "invert") == nil)
  }
}

/// A processor that returns its input.
private struct Identity: ImageProcessor {
  var identifier: String { "identity@1" }
  func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage { image }
}

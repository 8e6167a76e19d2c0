import Foundation
import ImageTables
import Testing
import Vips

@testable import ImageProcessing

/// The example plugin (Examples/CustomProcessor), built by SwiftPM beside the tests.
@Suite("Dynamic plugins")
struct PluginTests {
  static let sepiaPath = URL(fileURLWithPath: CommandLine.arguments[0])
    .deletingLastPathComponent().appendingPathComponent("libSepiaPlugin.so").path

  @Test func theExamplePluginLoadsAndRuns() throws {
    #expect(
      FileManager.default.fileExists(atPath: Self.sepiaPath),
      "build it: swift build --product SepiaPlugin")
    let registry = ProcessorRegistry.withBuiltIns()
    #expect(try PluginLoader.load(path: Self.sepiaPath, into: registry) == ["sepia"])
    #expect(registry.definition(named: "sepia")?.signature == "sepia(strength: number 0...1 = 1)")
    // Known colours through the sepia matrix: (100, 150, 200) becomes
    // (0.393 x 100 + 0.769 x 150 + 0.189 x 200, ...) = (192.45, 171.4, 133.5).
    let image = try VipsImage(
      pixels: [100, 150, 200, 128, 0, 0, 0, 255], width: 2, height: 1, bands: 4)
    let pipeline = try registry.pipeline("sepia")
    #expect(pipeline.identifier == "sepia@1(strength: 1)")
    let toned = try pipeline.process(image, context: context(2, 1))
    #expect(toned.bands == 4)
    let pixel = try toned.pixel(x: 0, y: 0)
    for (value, wanted) in zip(pixel, [192.45, 171.4, 133.5, 128]) {
      #expect(abs(value - wanted) <= 1, "\(pixel)")
    }
    // Half strength: halfway between the photo and sepia.
    let half = try registry.pipeline("sepia(strength: 0.5)").process(image, context: context(2, 1))
    let mixed = try half.pixel(x: 0, y: 0)
    for (value, wanted) in zip(mixed, [146.2, 160.7, 166.75]) {
      #expect(abs(value - wanted) <= 1, "\(mixed)")
    }
    // Its parameters are checked by the host like any other.
    #expect(throws: PipelineError.self) { try registry.pipeline("sepia(strength: 2)") }
    // On a real photo, after fill, in a table's style.
    let photo = try SourceDecoder.decode(
      file: Photos.bundled("rocket.jpg"), covering: [.init(width: 40, height: 40)])
    let result = try registry.pipeline("fill | sepia | circle").process(
      photo, context: context(40, 40))
    #expect((result.width, result.height, result.bands) == (40, 40, 4))
  }

  @Test func loadingItTwiceSaysTheNameIsTaken() throws {
    let registry = ProcessorRegistry.withBuiltIns()
    try PluginLoader.load(path: Self.sepiaPath, into: registry)
    #expect(
      throws: PluginError.registrationFailed(
        path: Self.sepiaPath,
        message:
          "processor 'sepia': a processor named 'sepia' is already registered; pass replacing: true to replace it"
      )
    ) {
      try PluginLoader.load(path: Self.sepiaPath, into: registry)
    }
  }

  @Test func aMissingFileSaysSo() {
    #expect(throws: PluginError.fileNotFound(path: "/nowhere/plugin.so")) {
      try PluginLoader.load(path: "/nowhere/plugin.so", into: ProcessorRegistry())
    }
  }

  @Test func aFileThatIsNotALibrarySaysSo() throws {
    let path = try Photos.temporaryFolder().appendingPathComponent("fake.so").path
    try Data("not a library".utf8).write(to: URL(fileURLWithPath: path))
    do {
      try PluginLoader.load(path: path, into: ProcessorRegistry())
      Issue.record("a text file loaded as a plugin")
    } catch {
      guard case .notLoadable(let failedPath, _) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(failedPath == path)
      #expect(error.description.contains("cannot be loaded as a shared library"))
    }
  }

  /// libvips itself: a real shared library without the plugin's functions.
  @Test func aLibraryWithoutTheEntryPointSaysSo() throws {
    _ = try VipsImage(pixels: [0], width: 1, height: 1, bands: 1)
    // /proc files report size 0: read to the end rather than by size.
    let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/maps"))
    let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    let line = try #require(maps.split(separator: "\n").first { $0.contains("libvips.so") })
    let path = try #require(line.split(separator: " ").last.map(String.init))
    #expect(
      throws: PluginError.missingEntryPoint(path: path, symbol: "imagetool_plugin_abi_version")
    ) {
      try PluginLoader.load(path: path, into: ProcessorRegistry())
    }
  }

  @Test func aWrongInterfaceVersionIsRefusedBeforeRegistering() {
    let registry = ProcessorRegistry()
    #expect(
      throws: PluginError.abiMismatch(path: "old.so", plugin: 99, host: PluginLoader.abiVersion)
    ) {
      try PluginLoader.register(path: "old.so", version: { 99 }, entry: { _ in 0 }, into: registry)
    }
    #expect(registry.all.isEmpty)
  }
}

/// Interface version 2 still loads plugins of version 1 and speaks it with them.
@Suite("Plugin interface versions")
struct PluginVersionTests {
  @Test func aVersionOnePluginLoadsAndIsToldVersionOne() throws {
    let registry = ProcessorRegistry()
    // Registers nothing, and succeeds only when the host says version 1.
    let names = try PluginLoader.register(
      path: "v1.so", version: { 1 }, entry: { host in host?.pointee.abi_version == 1 ? 0 : 1 },
      into: registry)
    #expect(names.isEmpty)
    #expect(PluginLoader.supportedABIVersions == 1...2)
    // Sepia declares version 1.
    try PluginLoader.load(path: PluginTests.sepiaPath, into: registry)
    #expect(registry.definition(named: "sepia") != nil)
  }

  @Test func theSameLibraryLoadsOnceWithLoadOnce() throws {
    let registry = ProcessorRegistry.withBuiltIns()
    #expect(try PluginLoader.loadOnce(path: PluginTests.sepiaPath, into: registry) == ["sepia"])
    // By another path to the same file: still the names, no clash.
    let other = URL(fileURLWithPath: PluginTests.sepiaPath).deletingLastPathComponent()
      .appendingPathComponent("./libSepiaPlugin.so").path
    #expect(try PluginLoader.loadOnce(path: other, into: registry) == ["sepia"])
    // load itself still registers again, and the name is taken.
    #expect(throws: PluginError.self) {
      try PluginLoader.load(path: PluginTests.sepiaPath, into: registry)
    }
  }
}

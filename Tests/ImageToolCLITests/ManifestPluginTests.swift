import Foundation
import ImageToolManifest
import Testing
import Vips

@testable import ImageToolCLI

/// A manifest's `"plugins"`: loaded before its pipelines are built, relative to it.
@Suite("imgtool.json plugins")
struct ManifestPluginTests {
  /// A folder with the sepia plugin in `plugins/`, a photo in `photos/`, and a manifest
  /// whose one format tones with it.
  private func project(plugins: String) throws -> URL {
    let folder = try Paths.temporaryFolder()
    for sub in ["plugins", "photos"] {
      try FileManager.default.createDirectory(
        at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
    }
    try FileManager.default.copyItem(
      atPath: ProcessingCommandTests.sepia,
      toPath: folder.appendingPathComponent("plugins/libSepiaPlugin.so").path)
    try FileManager.default.copyItem(
      atPath: Paths.bundled("coffee.png"),
      toPath: folder.appendingPathComponent("photos/coffee.png").path)
    let manifest = """
      {
        "cache": "cache",
        "plugins": \(plugins),
        "formats": [
          { "name": "toned", "family": "toned", "size": "24x24", "scale": 1,
            "pipeline": "fill | sepia" }
        ]
      }
      """
    try Data(manifest.utf8).write(to: folder.appendingPathComponent("imgtool.json"))
    return folder
  }

  @Test func renderLoadsTheManifestsPluginsWithoutPluginOptions() async throws {
    let folder = try project(plugins: #"["plugins/libSepiaPlugin.so"]"#)
    let manifest = folder.appendingPathComponent("imgtool.json").path
    let render = await runTool([
      "render", "--manifest", manifest, "--family", "toned", "--quiet",
      folder.appendingPathComponent("photos").path,
    ])
    #expect(render.status == 0, "\(render.err)")
    let exported = folder.appendingPathComponent("toned.png").path
    let export = await runTool([
      "export", "--manifest", manifest, "--format", "toned", "--entity", "coffee.png", exported,
    ])
    #expect(export.status == 0, "\(export.err)")
    // Sepia: red over green over blue, everywhere.
    let image = try VipsImage(file: exported)
    #expect((image.width, image.height) == (24, 24))
    for (x, y) in [(0, 0), (12, 12), (23, 5), (4, 20)] {
      let pixel = try image.pixel(x: x, y: y)
      #expect(pixel[0] >= pixel[1] && pixel[1] >= pixel[2], "\(x),\(y): \(pixel)")
    }
    // The same plugin named with --plugin as well loads once, without a clash.
    let both = await runTool([
      "--plugin", folder.appendingPathComponent("plugins/libSepiaPlugin.so").path, "render",
      "--manifest", manifest, "--family", "toned", "--quiet",
      folder.appendingPathComponent("photos").path,
    ])
    #expect(both.status == 0, "\(both.err)")
  }

  /// `processors` lists, and `apply` runs, the processors of the manifest's plugins, as a
  /// render of it would: `apply` gives the pixels the render stored.
  @Test func processorsAndApplyLoadTheManifestsPlugins() async throws {
    let folder = try project(plugins: #"["plugins/libSepiaPlugin.so"]"#)
    let manifest = folder.appendingPathComponent("imgtool.json").path
    let listed = await runTool(["processors", "--manifest", manifest])
    #expect(listed.status == 0, "\(listed.err)")
    #expect(listed.out.contains { $0.hasPrefix("sepia") }, "\(listed.out)")
    let without = await runTool([
      "processors", "--manifest",
      try project(plugins: "[]").appendingPathComponent("imgtool.json").path,
    ])
    #expect(without.status == 0 && !without.out.contains { $0.hasPrefix("sepia") })

    let photo = folder.appendingPathComponent("photos/coffee.png").path
    let applied = folder.appendingPathComponent("applied.png").path
    let apply = await runTool([
      "apply", "--manifest", manifest, "--pipeline", "fill | sepia", "--size", "24x24", photo,
      applied,
    ])
    #expect(apply.status == 0, "\(apply.err)")
    let render = await runTool([
      "render", "--manifest", manifest, "--family", "toned", "--quiet",
      folder.appendingPathComponent("photos").path,
    ])
    #expect(render.status == 0, "\(render.err)")
    let exported = folder.appendingPathComponent("exported.png").path
    let export = await runTool([
      "export", "--manifest", manifest, "--format", "toned", "--entity", "coffee.png", exported,
    ])
    #expect(export.status == 0, "\(export.err)")
    let (a, b) = (try VipsImage(file: applied), try VipsImage(file: exported))
    #expect((a.width, a.height, a.bands) == (b.width, b.height, b.bands))
    #expect(try a.maximumDifference(to: b) == 0)
  }

  @Test func withoutThemTheProcessorIsUnknown() async throws {
    let folder = try project(plugins: "[]")
    let render = await runTool([
      "render", "--manifest", folder.appendingPathComponent("imgtool.json").path, "--family",
      "toned", "--quiet", folder.appendingPathComponent("photos").path,
    ])
    #expect(render.status == 1)
    #expect(render.err.joined().contains("sepia"), "\(render.err)")
  }

  @Test func aMissingPluginNamesTheField() async throws {
    let folder = try project(plugins: #"["plugins/libSepiaPlugin.so", "plugins/nope.so"]"#)
    let manifest = folder.appendingPathComponent("imgtool.json").path
    let render = await runTool([
      "render", "--manifest", manifest, "--family", "toned",
      folder.appendingPathComponent("photos").path,
    ])
    #expect(render.status == 1)
    let nope = folder.appendingPathComponent("plugins/nope.so").path
    #expect(render.err == ["imgtool: \(manifest): plugins[1]: plugin \(nope): no such file"])
  }

  @Test func aFileThatIsNotAPluginNamesTheField() async throws {
    let folder = try project(plugins: #"["photos/coffee.png"]"#)
    let manifest = folder.appendingPathComponent("imgtool.json").path
    let render = await runTool([
      "render", "--manifest", manifest, "--family", "toned",
      folder.appendingPathComponent("photos").path,
    ])
    #expect(render.status == 1)
    let message = render.err.joined()
    #expect(message.hasPrefix("imgtool: \(manifest): plugins[0]: plugin "), "\(message)")
    #expect(message.contains("cannot be loaded as a shared library"), "\(message)")
  }

  @Test func manifestCheckLoadsThemAndNamesAMissingOne() async throws {
    let good = try project(plugins: #"["plugins/libSepiaPlugin.so"]"#)
    let goodPath = good.appendingPathComponent("imgtool.json").path
    let valid = await runTool(["manifest", "--check", goodPath])
    #expect(valid.status == 0, "\(valid.err)")
    #expect(valid.out == ["\(goodPath): valid: 1 format in 1 family, every pipeline builds"])
    let bad = try project(plugins: #"["plugins/nope.so"]"#)
    let badPath = bad.appendingPathComponent("imgtool.json").path
    let invalid = await runTool(["manifest", "--check", badPath])
    #expect(invalid.status == 1)
    let nope = bad.appendingPathComponent("plugins/nope.so").path
    #expect(invalid.err.first == "imgtool: \(badPath): plugins[0]: plugin \(nope): no such file")
    #expect(
      invalid.err.count == 2 && invalid.err.last?.contains("unknown processor 'sepia'") == true)
  }

  @Test func theFieldMustBeAListOfPaths() throws {
    for (value, field, message) in [
      (#""libSepiaPlugin.so""#, "plugins", "must be a list of paths to plugin libraries (.so)"),
      ("[3]", "plugins[0]", "must be the path of a plugin library (.so)"),
      (#"["a.so", ""]"#, "plugins[1]", "must be the path of a plugin library (.so)"),
    ] {
      let folder = try project(plugins: value)
      let path = folder.appendingPathComponent("imgtool.json").path
      #expect(throws: ManifestError.invalidField(path: path, field: field, message: message)) {
        try Manifest.load(path: path)
      }
    }
  }

  @Test func theManifestKeepsThemAsWrittenAndResolvesThemFromItsFolder() throws {
    let folder = try project(plugins: #"["plugins/libSepiaPlugin.so", "/abs/lib.so"]"#)
    let manifest = try Manifest.load(path: folder.appendingPathComponent("imgtool.json").path)
    #expect(manifest.plugins == ["plugins/libSepiaPlugin.so", "/abs/lib.so"])
    #expect(
      manifest.pluginPaths == [
        folder.appendingPathComponent("plugins/libSepiaPlugin.so").path, "/abs/lib.so",
      ])
    #expect(
      manifest.json.pretty.contains(#""plugins" : ["#)
        || manifest.json.pretty.contains(#""plugins": ["#))
  }
}

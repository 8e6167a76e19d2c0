import Foundation
import Testing
import Vips

/// A Swift processor as a plugin (Examples/CustomProcessor/InvertPlugin, through
/// ImageToolPluginKit), named by a manifest and rendered by the built `imgtool`.
@Suite("Swift plugins in imgtool render")
struct SwiftPluginRenderTests {
  static let invert = Paths.executable.deletingLastPathComponent()
    .appendingPathComponent("libInvertPlugin.so").path

  /// A folder with the plugin in `plugins/`, two photos in `photos/`, and a manifest
  /// whose family keeps each photo plain, inverted and not inverted at all.
  private func project() throws -> URL {
    let folder = try Paths.temporaryFolder()
    for sub in ["plugins", "photos"] {
      try FileManager.default.createDirectory(
        at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
    }
    try FileManager.default.copyItem(
      atPath: Self.invert, toPath: folder.appendingPathComponent("plugins/libInvertPlugin.so").path)
    for photo in ["rocket.jpg", "hubble.jpg"] {
      try FileManager.default.copyItem(
        atPath: Paths.bundled(photo), toPath: folder.appendingPathComponent("photos/" + photo).path)
    }
    let manifest = """
      {
        "cache": "cache",
        "plugins": ["plugins/libInvertPlugin.so"],
        "defaults": { "scale": 1, "style": "bgr32" },
        "formats": [
          { "name": "plain", "family": "looks", "size": "48x32", "pipeline": "fill" },
          { "name": "negative", "family": "looks", "size": "48x32",
            "pipeline": "fill | invert" },
          { "name": "unchanged", "family": "looks", "size": "48x32",
            "pipeline": "fill | invert(amount: 0)" }
        ]
      }
      """
    try Data(manifest.utf8).write(to: folder.appendingPathComponent("imgtool.json"))
    return folder
  }

  /// The entry `format` holds for `entity`, exported by imgtool as RGB samples.
  private func exported(_ folder: URL, format: String, entity: String) throws -> [UInt8] {
    let path = folder.appendingPathComponent("\(format)-\(entity).png").path
    let export = try runExecutable(
      ["export", "--format", format, "--entity", entity, path], in: folder)
    #expect(export.status == 0, "\(export.err)")
    let image = try VipsImage(file: path)
    #expect((image.width, image.height) == (48, 32))
    return try image.extractingBands(0, count: 3).writePixels()
  }

  @Test func renderRunsTheSwiftProcessorAsLibvipsWould() throws {
    #expect(
      FileManager.default.fileExists(atPath: Self.invert),
      "build it: swift build --product InvertPlugin")
    let folder = try project()
    let render = try runExecutable(["render", "--family", "looks", "photos"], in: folder)
    #expect(render.status == 0, "\(render.err)")
    #expect(render.out.contains("2 rendered"), "\(render.out)")
    for entity in ["rocket.jpg", "hubble.jpg"] {
      let plain = try exported(folder, format: "plain", entity: entity)
      // The negative, computed independently: libvips's linear on the plain entry.
      let reference = try VipsImage(pixels: plain, width: 48, height: 32, bands: 3)
        .linear([-1, -1, -1], [255, 255, 255], clampToUInt8: true).writePixels()
      #expect(try exported(folder, format: "negative", entity: entity) == reference, "\(entity)")
      #expect(try exported(folder, format: "unchanged", entity: entity) == plain, "\(entity)")
      #expect(plain != reference)
    }
    // Up to date: a second render writes nothing, the plugin loaded again.
    let again = try runExecutable(["render", "--family", "looks", "photos"], in: folder)
    #expect(again.status == 0, "\(again.err)")
    #expect(again.out.contains("0 rendered"), "\(again.out)")
  }

  @Test func pluginOptionListsTheSwiftProcessor() throws {
    let listed = try runExecutable(["--plugin", Self.invert, "processors"])
    #expect(listed.status == 0, "\(listed.err)")
    #expect(listed.out.contains("invert(amount: number 0...1 = 1)"), "\(listed.out)")
  }

  /// Named twice under two names (two copies of the file): the second copy's `invert`
  /// is refused with the host's typed error, naming the file.
  @Test func aSecondCopyDeclaresADuplicateName() throws {
    let folder = try project()
    let copy = folder.appendingPathComponent("plugins/libInvertCopy.so").path
    try FileManager.default.copyItem(atPath: Self.invert, toPath: copy)
    let render = try runExecutable(
      ["--plugin", copy, "render", "--family", "looks", "photos"], in: folder)
    #expect(render.status != 0)
    #expect(
      render.err.contains(
        "plugins[0]: plugin \(folder.appendingPathComponent("plugins/libInvertPlugin.so").path): processor 'invert': a processor named 'invert' is already registered"
      ), "\(render.err)")
  }
}

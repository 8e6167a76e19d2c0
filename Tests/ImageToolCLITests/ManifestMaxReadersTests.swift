import Foundation
import ImageToolManifest
import Testing

/// The manifest's `"maxReaders"`: how many processes may read each table at once.
@Suite("Manifest maxReaders")
struct ManifestMaxReadersTests {
  private func manifest(_ maxReaders: String) throws -> (folder: URL, path: String) {
    let folder = try Paths.temporaryFolder()
    let path = folder.appendingPathComponent("imgtool.json").path
    let text = """
      { "cache": "cache", "maxReaders": \(maxReaders),
        "formats": [{ "name": "tiny", "family": "tiny", "size": "8x8", "scale": 1 }] }
      """
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return (folder, path)
  }

  /// A render with the manifest makes each table's shared file with that many reader
  /// records (its header's count), and `imgtool manifest`'s JSON keeps the field.
  @Test func aRenderSizesTheReaderTableFromTheManifest() async throws {
    let (folder, path) = try manifest("5")
    let loaded = try Manifest.load(path: path)
    #expect(loaded.maxReaders == 5)
    #expect(loaded.json.text.contains("\"maxReaders\":5"))
    let result = await runTool([
      "render", "--family", "tiny", "--manifest", path, "--quiet", Paths.bundled("rocket.jpg"),
    ])
    try #require(result.status == 0, "\(result.err)")
    let shared = try Data(contentsOf: folder.appendingPathComponent("cache/tiny.shared"))
    #expect(shared.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 12, as: UInt32.self) } == 5)
    #expect(Manifest.builtIn.maxReaders == nil)
  }

  @Test func theValueIsChecked() throws {
    for (value, message) in [
      ("0", "0 is outside 1...65536 (processes reading a table at once)"),
      ("65537", "65537 is outside 1...65536 (processes reading a table at once)"),
      ("\"many\"", "must be a whole number"),
    ] {
      let (_, path) = try manifest(value)
      #expect(throws: ManifestError.invalidField(path: path, field: "maxReaders", message: message))
      {
        try Manifest.load(path: path)
      }
    }
  }
}

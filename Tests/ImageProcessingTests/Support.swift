import Foundation
import ImageTables
import Testing
import Vips

@testable import ImageProcessing

enum Photos {
  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let shared = packageRoot.appendingPathComponent("../shared/fixtures/photos").standardized
  static var sharedAvailable: Bool { FileManager.default.fileExists(atPath: shared.path) }

  static func bundled(_ name: String) -> String {
    packageRoot.appendingPathComponent("Examples/Photos/\(name)").path
  }

  static func sharedPhoto(_ name: String) -> String { shared.appendingPathComponent(name).path }

  static func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("imageprocessing-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }
}

let registry = ProcessorRegistry.withBuiltIns()

func context(_ width: Int, _ height: Int, scale: Int = 1, style: PixelStyle = .bgra32)
  -> ProcessingContext
{
  ProcessingContext(
    formatName: "test", family: "test", pixelWidth: width * scale, pixelHeight: height * scale,
    scale: scale, style: style, entityID: "photo")
}

/// Runs `spec` on a photo decoded to cover the context's size, as the cache will.
func run(_ spec: String, on path: String, _ context: ProcessingContext) throws -> VipsImage {
  let source = try SourceDecoder.decode(
    file: path, covering: [.init(width: context.pixelWidth, height: context.pixelHeight)])
  return try registry.pipeline(spec).process(source, context: context)
}

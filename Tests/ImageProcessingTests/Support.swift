import Foundation
import ImageTables
import TestFixtures
import Testing
import Vips

@testable import ImageProcessing

/// This target's short names for the fixtures of `TestFixtures` (Tests/Fixtures).
enum Photos {
  static func bundled(_ name: String) -> String { Fixtures.photo(name) }

  static func temporaryFolder() throws -> URL { try Fixtures.temporaryFolder() }
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

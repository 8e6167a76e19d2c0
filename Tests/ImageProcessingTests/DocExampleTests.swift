import Foundation
import ImageTables
import TestFixtures
import Testing
import Vips

@testable import ImageProcessing

/// `ImageProcessor`'s DocC example, word for word (checked below), so that it is run
/// and not only compiled.
enum ImageProcessorExample {
  // example begins
  struct Invert: ImageProcessor {
    let arguments: ProcessorArguments
    var identifier: String { arguments.identifier }
    func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
      // 255 - each colour band; an alpha band, if there is one, is kept as it is.
      let srgb = try image.toSRGB()
      let alpha = srgb.hasAlpha
      return try srgb.linear(
        alpha ? [-1, -1, -1, 1] : [-1, -1, -1], alpha ? [255, 255, 255, 0] : [255, 255, 255],
        clampToUInt8: true)
    }
  }
  // example ends
}

@Suite("DocC examples that run")
struct DocExampleTests {
  /// The lines of the first ```swift block of a doc comment in `path`.
  static func firstDocSnippet(in path: String) throws -> [String] {
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(
      separator: "\n", omittingEmptySubsequences: false)
    let docs = lines.map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { $0.hasPrefix("///") }
      .map { $0 == "///" ? "" : String($0.dropFirst(4)) }
    guard let start = docs.firstIndex(of: "```swift"),
      let end = docs[(start + 1)...].firstIndex(of: "```")
    else { return [] }
    return Array(docs[(start + 1)..<end])
  }

  @Test func theInvertHereIsImageProcessorsDocExample() throws {
    let doc = try Self.firstDocSnippet(
      in: Fixtures.packageRoot.appendingPathComponent(
        "Sources/ImageProcessing/ImageProcessor.swift"
      ).path)
    let own = try String(contentsOfFile: #filePath, encoding: .utf8).split(
      separator: "\n", omittingEmptySubsequences: false)
    let start = own.firstIndex { $0.contains("// example begins") }!
    let end = own.firstIndex { $0.contains("// example ends") }!
    let copy = own[(start + 1)..<end].map { String($0.dropFirst(2)) }
    #expect(!doc.isEmpty)
    #expect(copy == doc)
  }

  /// The example on an RGBA photo: colour inverted, alpha kept, pixel for pixel as
  /// libvips computes the same inversion of the colour bands alone, joined to the
  /// photo's own alpha.
  @Test(arguments: ["chelsea-roundmask-alpha.png", "chelsea-grey-alpha.png", "coffee.png"])
  func invertRunsOnPhotosWithAndWithoutAlpha(_ name: String) throws {
    let registry = ProcessorRegistry.withBuiltIns()
    try registry.register(
      ProcessorDefinition(name: "invert", summary: "Negative.") {
        ImageProcessorExample.Invert(arguments: $0)
      })
    let photo = try VipsImage(file: Fixtures.path(name))
    let inverted = try registry.pipeline("invert").process(
      photo, context: context(photo.width, photo.height))

    let srgb = try photo.toSRGB()
    let colour = try srgb.extractingBands(0, count: 3).linear(
      [-1], [255], clampToUInt8: true)
    let expected = srgb.hasAlpha ? try colour.joiningBands(srgb.extractingBands(3)) : colour
    #expect(inverted.bands == (name == "coffee.png" ? 3 : 4))
    #expect(inverted.bands == expected.bands)
    #expect(inverted.width == photo.width && inverted.height == photo.height)
    #expect(try inverted.writePixels() == expected.writePixels())

    // And by hand: every sample of the input's colour is 255 minus itself, alpha kept.
    let input = try srgb.writePixels()
    let output = try inverted.writePixels()
    let bands = srgb.bands
    let wrong = (0..<input.count).filter { index in
      let isAlpha = bands == 4 && index % 4 == 3
      return output[index] != (isAlpha ? input[index] : 255 - input[index])
    }
    #expect(wrong.isEmpty, "\(wrong.count) samples differ")
    if bands == 4 { #expect(Set(input.enumerated().filter { $0.0 % 4 == 3 }.map(\.1)).count > 2) }
  }
}

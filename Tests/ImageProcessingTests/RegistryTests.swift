import ImageTables
import Testing
import Vips

@testable import ImageProcessing

/// A custom processor as a user writes one: a few lines.
struct Invert: ImageProcessor {
  var identifier: String { "invert@1" }
  func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
    try image.toSRGB().extractingBands(0, count: 3).linear(
      [-1, -1, -1], [255, 255, 255], clampToUInt8: true)
  }
}

@Suite("Processor registry")
struct RegistryTests {
  @Test func listsEveryBuiltInWithParameters() {
    let names = ProcessorRegistry.withBuiltIns().all.map(\.name)
    #expect(
      names == [
        "blur", "border", "circle", "crop", "fill", "fit", "flatten", "grayscale", "roundedCorners",
        "sharpen",
      ])
    let fill = ProcessorRegistry.withBuiltIns().definition(named: "fill")
    #expect(fill?.signature == "fill(crop: centre | attention | entropy = centre)")
  }

  @Test func suggestionsFindCloseNames() {
    #expect(Suggestion.closest(to: "inof", among: ["info", "render"]) == "info")
    #expect(Suggestion.closest(to: "zzzzzz", among: ["info", "render"]) == nil)
    #expect(
      Suggestion.closest(to: "fil", among: ["fit", "fill", "blur"], limit: 2) == ["fill", "fit"])
    #expect(Suggestion.distance("kitten", "sitting") == 3)
  }

  @Test func takenNamesNeedReplacing() throws {
    let registry = ProcessorRegistry.withBuiltIns()
    let definition = ProcessorDefinition(name: "fill", summary: "mine") { _ in Invert() }
    #expect(throws: RegistryError.nameTaken("fill")) { try registry.register(definition) }
    try registry.register(definition, replacing: true)
    // The replacement runs; the fingerprint records the registered name and version,
    // and what the processor's own identifier adds.
    #expect(try registry.pipeline("fill").identifiers == ["fill@1 + invert@1"])
    #expect(try registry.pipeline("fill").identifier == "fill@1")
    #expect(throws: RegistryError.invalidName("my-thing")) {
      try registry.register(ProcessorDefinition(name: "my-thing", summary: "") { _ in Invert() })
    }
    #expect(throws: RegistryError.self) {
      try registry.register(
        ProcessorDefinition(
          name: "bad", summary: "",
          parameters: [.init("n", .number(0...1), default: .number(5), "")]
        ) { _ in Invert() })
    }
  }

  @Test func aCustomProcessorIsAFewLines() throws {
    let registry = ProcessorRegistry.withBuiltIns()
    try registry.register(
      ProcessorDefinition(name: "invert", summary: "Negative.") { _ in Invert() })
    let source = try SourceDecoder.decode(
      file: Photos.bundled("coffee.png"), covering: [.init(width: 40, height: 30)])
    let inverted = try registry.pipeline("fill | invert").process(source, context: context(40, 30))
    let plain = try registry.pipeline("fill").process(source, context: context(40, 30)).toSRGB()
    #expect(try inverted.pixel(x: 5, y: 5).map { 255 - $0 } == plain.pixel(x: 5, y: 5))
    #expect(try registry.pipeline("fill | invert").identifier == "fill@2(crop: centre) | invert@1")
  }

  @Test func processorFailuresNameTheProcessorAndEntity() throws {
    let tiny = try VipsImage(pixels: [1, 2, 3], width: 1, height: 1, bands: 3)
    let pipeline = try registry.pipeline("crop(x: 5, y: 5, width: 10, height: 10)")
    // Clipped to the image: a crop outside keeps the last pixel rather than failing.
    #expect(try pipeline.process(tiny, context: context(1, 1)).width == 1)
    struct Failing: ImageProcessor {
      var identifier: String { "failing@1" }
      func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
        try image.cropped(left: 9, top: 9, width: 1, height: 1)
      }
    }
    let failing = Pipeline(spec: "failing", processors: [Failing()])
    #expect(throws: ProcessingError.self) { try failing.process(tiny, context: context(1, 1)) }
    do {
      _ = try failing.process(tiny, context: context(1, 1))
    } catch {
      #expect(error.description.hasPrefix("photo: processor failing@1 failed: crop: the rectangle"))
    }
  }
}

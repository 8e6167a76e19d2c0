import Testing

@testable import ImageProcessing

@Suite("Pipeline grammar")
struct GrammarTests {
  @Test func parsesProcessorsArgumentsAndValues() throws {
    let spec = try PipelineSpec(
      parsing:
        ##"fill(crop: attention) | circle | border(width: 2, color: "#ffffff") | x@3(a: -0.5, b: #00ffff88, c: "q\"uote")"##
    )
    #expect(spec.calls.map(\.name) == ["fill", "circle", "border", "x"])
    #expect(
      spec.calls[0].arguments == [
        .init(name: "crop", value: .word("attention"), column: 6, valueColumn: 12)
      ])
    #expect(spec.calls[2].arguments[1].value == .string("#ffffff"))
    #expect(spec.calls[3].version == 3)
    #expect(
      spec.calls[3].arguments.map(\.value) == [
        .number(-0.5), .color(.init(0, 255, 255, 136)), .string("q\"uote"),
      ])
    #expect(spec.calls.map(\.column) == [1, 25, 34, 71])
  }

  @Test(arguments: [
    "fill", "fit", "fill(crop: attention) | circle", "fit(enlarge: true) | grayscale",
    ##"fill | roundedCorners(radius: 12) | border(width: 1.5, color: "#336699")"##,
    "crop(x: 0.1, y: 0.2, width: 0.5, height: 0.5, unit: fraction) | fit",
    "fill(crop: entropy) | blur(sigma: 2) | sharpen | flatten(color: #000)",
  ])
  func specsRoundTripThroughTheirIdentifiers(_ text: String) throws {
    let pipeline = try registry.pipeline(text)
    let again = try registry.pipeline(pipeline.identifier)
    #expect(again.identifier == pipeline.identifier)
    #expect(again.identifiers.count == pipeline.identifiers.count)
  }

  @Test func identifiersNameVersionAndEveryParameter() throws {
    let pipeline = try registry.pipeline(##"fill | border(color: "#f00")"##)
    #expect(
      pipeline.identifiers == ["fill@2(crop: centre)", "border@1(width: 1, color: #ff0000ff)"])
  }

  /// Every malformed spec gives a message with a column; the columns are checked
  /// where they are certain.
  @Test(arguments: [
    ("", 1, "the pipeline is empty"),
    ("fill |", 7, "expected a processor name after '|'"),
    ("fill(crop attention)", 11, "expected ':' after the argument name 'crop'"),
    ("fill(crop: attention", 21, "expected ')' to close the arguments of 'fill'"),
    ("fill(crop: attention) circle", 23, "expected '|' between processors"),
    ("fill(: x)", 6, "expected an argument name"),
    ("fill(crop: )", 12, "expected a value"),
    (##"border(color: "#fff)"##, 15, "this string is not closed"),
    ("border(color: #ggg)", 15, "'#ggg' is not a colour"),
    ("blur(sigma: 1.2.3)", 13, "'1.2.3' is not a number"),
    ("fill@x", 6, "expected a version number after '@'"),
    ("fill(crop: centre,)", 19, "expected an argument name"),
    ("fil", 1, "unknown processor 'fil'; did you mean 'fill' or 'fit'?"),
    ("fill | sircle", 8, "unknown processor 'sircle'; did you mean 'circle'?"),
    ("fill(crop: atention)", 12, "crop must be one of centre | attention | entropy, not atention"),
    ("fill(crp: centre)", 6, "no parameter 'crp'; did you mean 'crop'?"),
    ("circle(radius: 3)", 8, "no parameter 'radius'; it takes none"),
    ("blur(sigma: -1)", 13, "sigma must be a number from 0.01 to 1000, not -1"),
    ("blur(sigma: wide)", 13, "sigma must be a number from 0.01 to 1000, not a word (wide)"),
    ("fill(crop: centre, crop: entropy)", 20, "'crop' is given twice"),
    ("crop(x: 1)", 1, "missing 'width:'"),
    ("crop(width: 2, height: 0)", 1, "width and height must be more than 0"),
    ("fill@3", 1, "this spec asks for version 3; the registered one is version 2"),
    (
      "border(color: 12)", 15,
      "color must be a colour (#rgb, #rrggbb or #rrggbbaa), not a number (12)"
    ),
    ("fit(enlarge: maybe)", 14, "enlarge must be true or false, not a word (maybe)"),
    ("fill & circle", 6, "expected '|' between processors or the end, found '&'"),
  ])
  func malformedSpecsSayWhereAndWhat(_ text: String, _ column: Int, _ words: String) {
    do {
      _ = try registry.pipeline(text)
      Issue.record("'\(text)' was accepted")
    } catch {
      #expect(error.column == column, "\(text): \(error)")
      #expect(error.message.contains(words), "\(text): \(error.message)")
      #expect(error.description.contains("column \(column):"))
      #expect(error.description.hasSuffix(String(repeating: " ", count: column - 1) + "^"))
    }
  }
}

import Foundation
import Testing
import Vips

@testable import ImageToolCLI

@Suite("imgtool processors, apply and --plugin")
struct ProcessingCommandTests {
  static let sepia = Paths.executable.deletingLastPathComponent()
    .appendingPathComponent("libSepiaPlugin.so").path

  @Test func processorsListsTheBuiltInsWithParameters() async {
    let result = await runTool(["processors"])
    #expect(result.status == 0)
    #expect(result.out.contains("fill(crop: centre | attention | entropy = centre)"))
    #expect(result.out.contains("circle"))
    #expect(
      result.out.contains(
        "    crop: What to keep: the centre, what draws the eye, or the most detail."))
    #expect(!result.out.contains { $0.hasPrefix("sepia") })
  }

  @Test func pluginsAddProcessors() async throws {
    let listed = await runTool(["--plugin", Self.sepia, "processors", "--json"])
    #expect(listed.status == 0)
    let list = try #require(
      try JSONSerialization.jsonObject(with: Data(listed.out.joined().utf8)) as? [[String: Any]])
    #expect(list.contains { $0["name"] as? String == "sepia" && $0["version"] as? Int == 1 })
    let missing = await runTool(["--plugin", "/no/such.so", "processors"])
    #expect(missing.status == 1)
    #expect(missing.err == ["imgtool: plugin /no/such.so: no such file"])
  }

  @Test func applyWritesWhatATableWouldHold() async throws {
    let folder = try Paths.temporaryFolder()
    let output = folder.appendingPathComponent("round.png").path
    let result = await runTool([
      "apply", "--pipeline", "fill(crop: attention) | circle", "--size", "32x32", "--scale", "2",
      Paths.bundled("astronaut.png"), output,
    ])
    #expect(result.status == 0, "\(result.err)")
    #expect(
      result.out == [
        "\(output): 64x64 bgra32 from \(Paths.bundled("astronaut.png")) through fill@2(crop: attention) | circle@1"
      ])
    let image = try VipsImage(file: output)
    #expect((image.width, image.height, image.bands) == (64, 64, 4))
    #expect(try image.pixel(x: 0, y: 0)[3] == 0)
    #expect(try image.pixel(x: 32, y: 32)[3] == 255)
  }

  @Test func applyShowsTheStylesBytes() async throws {
    let folder = try Paths.temporaryFolder()
    let output = folder.appendingPathComponent("banded.png").path
    let result = await runTool([
      "apply", "--pipeline", "fill | circle", "--size", "24x24", "--style", "bgr555",
      "--background",
      "#0000ff", Paths.bundled("coffee.png"), output,
    ])
    #expect(result.status == 0, "\(result.err)")
    let image = try VipsImage(file: output)
    #expect(image.bands == 3)
    #expect(try image.pixel(x: 0, y: 0) == [0, 0, 255])  // the background, through 555
    // Every channel is a 5-bit value widened: (v << 3) | (v >> 2).
    let samples = try image.writePixels()
    #expect(samples.allSatisfy { value in value == (value >> 3) << 3 | (value >> 3) >> 2 })
  }

  @Test func applyThroughThePlugin() async throws {
    let output = try Paths.temporaryFolder().appendingPathComponent("old.jpg").path
    let result = await runTool([
      "--plugin", Self.sepia, "apply", "--pipeline", "fill | sepia(strength: 0.8)", "--size",
      "40x30",
      "--style", "bgr32", Paths.bundled("rocket.jpg"), output,
    ])
    #expect(result.status == 0, "\(result.err)")
    #expect(try ImageHeader(file: output).width == 40)
  }

  @Test func applyErrorsSayWhatIsWrong() async throws {
    let output = try Paths.temporaryFolder().appendingPathComponent("x.png").path
    let badSpec = await runTool([
      "apply", "--pipeline", "fill(crop: middle)", "--size", "8x8", Paths.bundled("coffee.png"),
      output,
    ])
    #expect(badSpec.status == 64)
    #expect(
      badSpec.err.first
        == "imgtool: --pipeline: column 12: fill: crop must be one of centre | attention | entropy, not middle\n"
        + "  fill(crop: middle)\n" + "             ^")
    let badSize = await runTool([
      "apply", "--pipeline", "fill", "--size", "8", Paths.bundled("coffee.png"), output,
    ])
    #expect(badSize.status == 64)
    #expect(
      badSize.err.first
        == "imgtool: invalid value '8' for '--size': expected WIDTHxHEIGHT in points, like 64x64")
    let tooBig = await runTool([
      "apply", "--pipeline", "grayscale", "--size", "8x8", Paths.bundled("coffee.png"), output,
    ])
    #expect(tooBig.status == 1)
    #expect(
      tooBig.err.first?.contains("larger than the 8x8 slot; start the pipeline with fill or fit")
        == true)
    let badInput = await runTool([
      "apply", "--pipeline", "fill", "--size", "8x8", "/missing.jpg", output,
    ])
    #expect(badInput.status == 1)
    #expect(badInput.err == ["imgtool: /missing.jpg: cannot read the file: no such file"])
    #expect(!FileManager.default.fileExists(atPath: output))
  }
}

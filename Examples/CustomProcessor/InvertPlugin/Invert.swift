// `invert(amount: 0...1)`: a processor written in Swift, the same `ProcessorDefinition`
// an app registers in its own process (`registry.register(Invert.definition)`), and a
// plugin for imgtool through ImageToolPluginKit (Plugin.swift).

import ImageProcessing
import Vips

/// Mixes a photo towards its negative: each colour sample `x` becomes
/// `x + amount * (255 - 2x)`, rounded; alpha is kept.
struct Invert: ImageProcessor {
  let identifier: String
  let amount: Double

  func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
    let srgb = try image.toSRGB()
    let scale = 1 - 2 * amount
    // linear truncates when it clamps to 8 bits: +0.5 rounds.
    let colour = try srgb.extractingBands(0, count: 3)
      .linear(
        [scale, scale, scale], Array(repeating: 255 * amount + 0.5, count: 3), clampToUInt8: true)
    let joined = srgb.hasAlpha ? try colour.joiningBands(srgb.extractingBands(3)) : colour
    return try joined.tagged(as: .srgb)
  }

  static let definition = ProcessorDefinition(
    name: "invert", version: 1,
    summary: "Mix towards the negative (a Swift plugin: Examples/CustomProcessor).",
    parameters: [
      ProcessorParameter(
        "amount", .number(0...1), default: .number(1),
        "How far towards the negative: 0 keeps the photo, 1 is the negative.")
    ]
  ) { arguments in
    Invert(identifier: arguments.identifier, amount: arguments.number("amount"))
  }
}

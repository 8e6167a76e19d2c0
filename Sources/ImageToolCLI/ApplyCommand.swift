import Foundation
import ImageProcessing
import ImageTables
import Vips

/// `imgtool apply`: one pipeline on one photo, written as an image to look at.
public struct ApplyCommand: Command {
  public init() {}

  public let spec = CommandSpec(
    name: "apply",
    abstract: "Run a pipeline on one photo and write what a table would hold.",
    discussion: """
      Decodes the photo once with shrink-on-load, runs the pipeline for a format of the \
      given size (in points) and scale, turns the result into the style's exact bytes (as \
      a table stores them), and writes those pixels to OUT (.png, .jpg or .webp), so that \
      what you see is what the cache serves: premultiplied alpha, 555 banding, grey.
      """,
    options: [
      .init(
        "pipeline", value: "spec", help: "The processors, e.g. \"fill | circle\".",
        required: true),
      .init(
        "size", value: "WxH", help: "The format's size in points, e.g. 64x64.", required: true),
      .init("scale", value: "n", help: "Pixels per point, 1 to 8 (default 1)."),
      .init("style", value: "style", help: "bgra32 (default), bgr32, bgr555 or gray8."),
      .init(
        "background", value: "colour",
        help: "What transparency is flattened onto for opaque styles (default #ffffff)."),
      FailOnOption.spec,
      DecodeTimeoutOption.spec,
      DecodeMemoryOption.spec,
      CacheOptions.manifestSpec,
    ],
    arguments: [
      .init("input", help: "The photo."),
      .init("output", help: "The image to write (.png, .jpg, .webp)."),
    ]
  )

  public func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> Int32 {
    guard let specText = arguments.value("pipeline") else {
      throw CommandLineError.missingOption(option: "--pipeline", valueName: "spec")
    }
    guard let sizeText = arguments.value("size") else {
      throw CommandLineError.missingOption(option: "--size", valueName: "WxH")
    }
    let parts = sizeText.lowercased().split(separator: "x").compactMap { Int($0) }
    guard parts.count == 2, parts.allSatisfy({ (1...16_384).contains($0) }) else {
      throw CommandLineError.invalidValue(
        option: "--size", value: sizeText, reason: "expected WIDTHxHEIGHT in points, like 64x64")
    }
    let scale = try arguments.integer("scale", in: 1...8, default: 1)
    let styleText = arguments.value("style") ?? "bgra32"
    guard let style = PixelStyle(rawValue: styleText) else {
      throw CommandLineError.invalidValue(
        option: "--style", value: styleText, reason: "expected bgra32, bgr32, bgr555 or gray8")
    }
    let backgroundText = arguments.value("background") ?? "#ffffff"
    guard let background = ArgumentValue.parseColor(backgroundText) else {
      throw CommandLineError.invalidValue(
        option: "--background", value: backgroundText, reason: "expected #rgb, #rrggbb or #rrggbbaa"
      )
    }
    let failOn = try FailOnOption.level(arguments)
    let limit = try DecodeTimeoutOption.limit(arguments)
    let limits = try DecodeMemoryOption.limits(arguments)
    let (input, output) = (arguments.positionals[0], arguments.positionals[1])
    guard EncodedFormat(path: output) != nil else {
      throw CommandLineError.invalidValue(
        option: "<output>", value: output, reason: "the name must end in .png, .jpg, .jpeg or .webp"
      )
    }
    try OutputFile.check(output)
    try CacheOptions.loadManifestPlugins(arguments, context: context)
    let pipeline: Pipeline
    do {
      pipeline = try context.registry.pipeline(specText)
    } catch {
      context.console.err("imgtool: --pipeline: \(error)")
      return ExitCode.usage
    }
    let processing = ProcessingContext(
      formatName: "apply", family: "apply", pixelWidth: parts[0] * scale,
      pixelHeight: parts[1] * scale, scale: scale, style: style, entityID: input,
      background: background)
    do {
      let raster = try Vips.withTimeLimit(limit, source: input, timedOut: { $0 as any Error }) {
        let source = try SourceDecoder.decode(
          file: input, for: [(pipeline, processing)], limits: limits, failOn: failOn)
        var processing = processing
        processing.geometry = source.geometry
        let processed = try pipeline.process(source.image, context: processing)
        return try Rasterizer.prepare(
          processed, style: style, background: background, slotWidth: processing.pixelWidth,
          slotHeight: processing.pixelHeight, format: "apply")
      }
      try raster.image().write(to: output)
      context.console.out(
        "\(output): \(raster.width)x\(raster.height) \(style.rawValue) from \(input) through "
          + pipeline.identifier)
      return ExitCode.success
    } catch {
      context.console.err("imgtool: \(error)")
      return ExitCode.failure
    }
  }
}

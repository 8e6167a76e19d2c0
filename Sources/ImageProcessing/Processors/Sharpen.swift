import Vips

extension ImageProcessors {
  /// Sharpens with libvips's unsharp mask on lightness; `sigma` in points.
  public struct Sharpen: SameGeometryProcessor {
    public static let definition = ProcessorDefinition(
      name: "sharpen", summary: "Sharpen edges (unsharp mask on lightness).",
      parameters: [
        .init("sigma", .number(0.01...100), default: .number(0.5), "Mask radius, in points.")
      ]
    ) { Sharpen(arguments: $0) }

    public let arguments: ProcessorArguments
    public var identifier: String { arguments.identifier }

    public init(arguments: ProcessorArguments) { self.arguments = arguments }

    public init(sigma: Double = 0.5) {
      self.init(arguments: ImageProcessors.arguments(Self.definition, ["sigma": .number(sigma)]))
    }

    public func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
      try image.toSRGB().sharpened(sigma: arguments.number("sigma") * Double(context.scale))
        .castToUInt8()
    }
  }
}

import Vips

extension ImageProcessors {
  /// A gaussian blur of `sigma` points. Colour is blurred premultiplied by alpha, so
  /// transparent pixels do not bleed into the edges.
  public struct Blur: SameGeometryProcessor {
    public static let definition = ProcessorDefinition(
      name: "blur", summary: "Gaussian blur of a sigma in points.",
      parameters: [
        .init("sigma", .number(0.01...1_000), default: .number(1), "Standard deviation, in points.")
      ]
    ) { Blur(arguments: $0) }

    public let arguments: ProcessorArguments
    public var identifier: String { arguments.identifier }

    public init(arguments: ProcessorArguments) { self.arguments = arguments }

    public init(sigma: Double) {
      self.init(arguments: ImageProcessors.arguments(Self.definition, ["sigma": .number(sigma)]))
    }

    public func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
      let sigma = arguments.number("sigma") * Double(context.scale)
      let srgb = try image.toSRGB()
      guard srgb.hasAlpha else { return try srgb.blurred(sigma: sigma).castToUInt8() }
      return try srgb.premultiplied().blurred(sigma: sigma).unpremultiplied().castToUInt8()
    }
  }
}

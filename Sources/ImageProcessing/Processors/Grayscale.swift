import Vips

extension ImageProcessors {
  /// Turns the image to luminance (alpha kept).
  public struct Grayscale: SameGeometryProcessor {
    public static let definition = ProcessorDefinition(
      name: "grayscale", summary: "Turn to shades of grey (alpha kept)."
    ) { Grayscale(arguments: $0) }

    public let arguments: ProcessorArguments
    public var identifier: String { arguments.identifier }

    public init(arguments: ProcessorArguments) { self.arguments = arguments }
    public init() { self.init(arguments: ImageProcessors.arguments(Self.definition, [:])) }

    public func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
      try image.toGreyscale()
    }
  }
}

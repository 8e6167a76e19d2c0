import Vips

extension ImageProcessors {
  /// Cuts the largest centred disc out of the image: transparent outside, with an
  /// anti-aliased edge. Opaque styles show the background there. A later `border`
  /// follows the circle.
  public struct Circle: SameGeometryProcessor {
    public static let definition = ProcessorDefinition(
      name: "circle", summary: "Cut a centred disc with an anti-aliased edge."
    ) { Circle(arguments: $0) }

    public let arguments: ProcessorArguments
    public var identifier: String { arguments.identifier }

    public init(arguments: ProcessorArguments) { self.arguments = arguments }
    public init() { self.init(arguments: ImageProcessors.arguments(Self.definition, [:])) }

    public func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
      let square = PixelRect.centredSquare(width: image.width, height: image.height)
      return try Shape(rect: square, radius: Double(square.width) / 2).cut(image)
    }
  }
}

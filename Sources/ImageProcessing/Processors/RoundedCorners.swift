import Vips

extension ImageProcessors {
  /// Rounds the corners by `radius` points, transparent outside, anti-aliased. A later
  /// `border` follows the corners.
  public struct RoundedCorners: SameGeometryProcessor {
    public static let definition = ProcessorDefinition(
      name: "roundedCorners", summary: "Round the corners by a radius in points.",
      parameters: [
        .init("radius", .number(0...10_000), default: .number(8), "Corner radius, in points.")
      ]
    ) { RoundedCorners(arguments: $0) }

    public let arguments: ProcessorArguments
    public var identifier: String { arguments.identifier }

    public init(arguments: ProcessorArguments) { self.arguments = arguments }

    public init(radius: Double) {
      self.init(arguments: ImageProcessors.arguments(Self.definition, ["radius": .number(radius)]))
    }

    public func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
      let whole = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
      return try Shape(rect: whole, radius: arguments.number("radius") * Double(context.scale)).cut(
        image)
    }
  }
}

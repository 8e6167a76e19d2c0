import Vips

extension ImageProcessors {
  /// Draws a border `width` points wide inside the edge, in `color`; it follows the
  /// outline of an earlier `circle` or `roundedCorners`.
  public struct Border: SameGeometryProcessor {
    public static let definition = ProcessorDefinition(
      name: "border", summary: "Draw a border inside the edge, following circle or corners.",
      parameters: [
        .init("width", .number(0...1_000), default: .number(1), "Border width, in points."),
        .init("color", .color, default: .color(.init(255, 255, 255)), "Border colour."),
      ]
    ) { Border(arguments: $0) }

    public let arguments: ProcessorArguments
    public var identifier: String { arguments.identifier }

    public init(arguments: ProcessorArguments) { self.arguments = arguments }

    public init(width: Double, color: String) throws {
      guard let rgba = ArgumentValue.parseColor(color) else {
        throw ArgumentProblem("'\(color)' is not a colour")
      }
      self.init(
        arguments: ImageProcessors.arguments(
          Self.definition, ["width": .number(width), "color": .color(rgba)]))
    }

    public func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
      let shape = Shape(of: image)
      let color = arguments.color("color")
      let srgb = try image.toSRGB()
      let values = [color.red, color.green, color.blue, color.alpha].prefix(srgb.bands).map(
        Double.init)
      return try srgb.bordered(
        width: context.pixels(arguments.number("width")), color: values, cornerRadius: shape.radius,
        in: shape.rect)
    }
  }
}

import Vips

extension ImageProcessors {
  /// Blends any transparency onto `color`, leaving an opaque image.
  public struct Flatten: SameGeometryProcessor {
    public static let definition = ProcessorDefinition(
      name: "flatten", summary: "Blend transparency onto a colour.",
      parameters: [
        .init("color", .color, default: .color(.init(255, 255, 255)), "The colour behind.")
      ]
    ) { Flatten(arguments: $0) }

    public let arguments: ProcessorArguments
    public var identifier: String { arguments.identifier }

    public init(arguments: ProcessorArguments) { self.arguments = arguments }

    public func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
      let color = arguments.color("color")
      return try image.toSRGB().flattened(
        background: [Double(color.red), Double(color.green), Double(color.blue)])
    }
  }
}

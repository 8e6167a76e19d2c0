import Vips

extension ImageProcessors {
  /// Fits inside the format's size, keeping the aspect ratio and cropping nothing. The
  /// result may be smaller than the slot (the table records its size); a small image
  /// keeps its size unless `enlarge` is true.
  public struct Fit: ImageProcessor {
    public static let definition = ProcessorDefinition(
      name: "fit", summary: "Fit inside the format's size; no crop, may be smaller.",
      parameters: [
        .init("enlarge", .boolean, default: .word("false"), "Enlarge images smaller than the size.")
      ]
    ) { Fit(arguments: $0) }

    public let arguments: ProcessorArguments
    public var identifier: String { arguments.identifier }

    public init(arguments: ProcessorArguments) { self.arguments = arguments }

    public init(enlarge: Bool = false) {
      self.init(
        arguments: ImageProcessors.arguments(Self.definition, ["enlarge": .word("\(enlarge)")]))
    }

    public func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
      try image.thumbnail(
        width: context.pixelWidth, height: context.pixelHeight, crop: .none,
        size: arguments.bool("enlarge") ? .both : .down)
    }
  }
}

import Vips

extension ImageProcessors {
  /// Covers the format's size and crops what overflows: the output is exactly the
  /// format's pixel size. `crop` chooses what stays: the centre, what draws the eye
  /// (`attention`: faces, skin, saturated colour) or the most detail (`entropy`).
  public struct Fill: ImageProcessor {
    public static let definition = ProcessorDefinition(
      name: "fill", summary: "Cover the format's size and crop the overflow.",
      parameters: [
        .init(
          "crop", .choice(["centre", "attention", "entropy"]), default: .word("centre"),
          "What to keep: the centre, what draws the eye, or the most detail.")
      ]
    ) { Fill(arguments: $0) }

    public let arguments: ProcessorArguments
    public var identifier: String { arguments.identifier }

    public init(arguments: ProcessorArguments) { self.arguments = arguments }

    public init(crop: Interesting = .centre) {
      self.init(
        arguments: ImageProcessors.arguments(Self.definition, ["crop": .word(crop.rawValue)]))
    }

    public func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
      try image.thumbnail(
        width: context.pixelWidth, height: context.pixelHeight,
        crop: Interesting(rawValue: arguments.word("crop")) ?? .centre, size: .both)
    }
  }
}

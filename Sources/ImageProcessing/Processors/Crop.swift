import Vips

extension ImageProcessors {
  /// Keeps a rectangle of the image, in pixels of the image as it reaches the step,
  /// or in fractions of its size (`unit: fraction`). Put it before `fill` or `fit`.
  public struct Crop: ImageProcessor {
    public static let definition = ProcessorDefinition(
      name: "crop", summary: "Keep a rectangle, in pixels or fractions of the image.",
      parameters: [
        .init("x", .number(0...1_000_000), default: .number(0), "Left edge."),
        .init("y", .number(0...1_000_000), default: .number(0), "Top edge."),
        .init("width", .number(0...1_000_000), "Width."),
        .init("height", .number(0...1_000_000), "Height."),
        .init(
          "unit", .choice(["pixels", "fraction"]), default: .word("pixels"),
          "Whether the numbers are pixels or fractions (0 to 1) of the size."),
      ]
    ) { arguments in
      guard arguments.number("width") > 0, arguments.number("height") > 0 else {
        throw ArgumentProblem("width and height must be more than 0")
      }
      if arguments.word("unit") == "fraction" {
        for name in ["x", "y", "width", "height"] where arguments.number(name) > 1 {
          throw ArgumentProblem("with unit: fraction, \(name) must be from 0 to 1")
        }
      }
      return Crop(arguments: arguments)
    }

    public let arguments: ProcessorArguments
    public var identifier: String { arguments.identifier }

    public init(arguments: ProcessorArguments) { self.arguments = arguments }

    /// The rectangle in `image`'s pixels, clipped to the image.
    public func rectangle(in image: VipsImage) -> PixelRect {
      let fraction = arguments.word("unit") == "fraction"
      func pixels(_ name: String, _ size: Int) -> Int {
        let value = arguments.number(name)
        return Int((fraction ? value * Double(size) : value).rounded())
      }
      let x = min(pixels("x", image.width), image.width - 1)
      let y = min(pixels("y", image.height), image.height - 1)
      return PixelRect(
        x: x, y: y, width: max(1, min(pixels("width", image.width), image.width - x)),
        height: max(1, min(pixels("height", image.height), image.height - y)))
    }

    public func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
      let rect = rectangle(in: image)
      return try image.cropped(left: rect.x, top: rect.y, width: rect.width, height: rect.height)
    }
  }
}

extension ArgumentProblem: CustomStringConvertible {
  var description: String { message }
}

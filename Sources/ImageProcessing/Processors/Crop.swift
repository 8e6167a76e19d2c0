import Vips

extension ImageProcessors {
  /// Keeps a rectangle of the photo, in the photo's pixels as displayed (after its
  /// EXIF orientation; after an earlier crop, relative to that crop), or in fractions
  /// of its size (`unit: fraction`). Put it before `fill` or `fit`: the family's decode
  /// is shrunk on load, and the rectangle is kept in the photo's coordinates whatever
  /// its size.
  public struct Crop: SourceGeometryProcessor {
    public static let definition = ProcessorDefinition(
      name: "crop", version: 2,
      summary: "Keep a rectangle, in the photo's pixels or fractions of it.",
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
      rectangle(width: image.width, height: image.height)
    }

    /// The rectangle in a `width` by `height` region's pixels, clipped to it.
    public func rectangle(width: Int, height: Int) -> PixelRect {
      let fraction = arguments.word("unit") == "fraction"
      func pixels(_ name: String, _ size: Int) -> Int {
        let value = arguments.number(name)
        return Int((fraction ? value * Double(size) : value).rounded())
      }
      let x = min(pixels("x", width), width - 1)
      let y = min(pixels("y", height), height - 1)
      return PixelRect(
        x: x, y: y, width: max(1, min(pixels("width", width), width - x)),
        height: max(1, min(pixels("height", height), height - y)))
    }

    /// The crop narrows the region: pixel units are the photo's own, as displayed.
    public func plan(_ geometry: SourceGeometry, context: ProcessingContext) -> GeometryStep {
      let rect = rectangle(width: geometry.region.width, height: geometry.region.height)
      var narrowed = geometry
      narrowed.region = PixelRect(
        x: geometry.region.x + rect.x, y: geometry.region.y + rect.y, width: rect.width,
        height: rect.height)
      return .region(narrowed)
    }

    /// Cuts the rectangle, given in the photo's pixels, out of the image, which may be a
    /// decode shrunk on load: then the cut takes every decoded pixel the rectangle
    /// touches, and the step that resamples maps them onto the rectangle's size.
    public func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
      let geometry = context.geometry(of: image)
      let rect = rectangle(width: geometry.region.width, height: geometry.region.height)
      let (across, down) = (geometry.imageScale, geometry.imageScale)
      let left = min(image.width - 1, Int((Double(rect.x) * across).rounded(.down)))
      let top = min(image.height - 1, Int((Double(rect.y) * down).rounded(.down)))
      let right = min(
        image.width, max(left + 1, Int((Double(rect.x + rect.width) * across).rounded(.up))))
      let bottom = min(
        image.height, max(top + 1, Int((Double(rect.y + rect.height) * down).rounded(.up))))
      return try image.cropped(left: left, top: top, width: right - left, height: bottom - top)
    }
  }
}

extension ArgumentProblem: CustomStringConvertible {
  var description: String { message }
}

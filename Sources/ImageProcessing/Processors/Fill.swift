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
      let crop = Interesting(rawValue: arguments.word("crop")) ?? .centre
      let (width, height) = (context.pixelWidth, context.pixelHeight)
      guard crop != .entropy else {
        return try image.thumbnail(width: width, height: height, crop: .entropy, size: .both)
      }
      // Resize to cover the target, then cut the target out where the crop says.
      let scale = max(Double(width) / Double(image.width), Double(height) / Double(image.height))
      let resized = try image.resized(scale: scale)
      guard resized.width >= width, resized.height >= height else {
        return try image.thumbnail(width: width, height: height, crop: crop, size: .both)
      }
      var centre = (x: Double(resized.width) / 2, y: Double(resized.height) / 2)
      if crop == .attention {
        // Attention depends on the window's shape, not its size: the formats of a family
        // that share a shape share one analysis, made on the decoded image itself.
        let window = (
          width: min(image.width, max(1, Int((Double(width) / scale).rounded()))),
          height: min(image.height, max(1, Int((Double(height) / scale).rounded())))
        )
        let key = "fill.attention:\(window.width)x\(window.height)"
        let found = try (context.memo ?? ProcessingMemo()).value(key) {
          let point = try image.attentionCentre(width: window.width, height: window.height)
          return [Double(point.x), Double(point.y)]
        }
        centre = (found[0] * scale, found[1] * scale)
      }
      let left = min(
        max(0, Int((centre.x - Double(width) / 2).rounded(.down))), resized.width - width)
      let top = min(
        max(0, Int((centre.y - Double(height) / 2).rounded(.down))), resized.height - height)
      return try resized.cropped(left: left, top: top, width: width, height: height)
    }
  }
}

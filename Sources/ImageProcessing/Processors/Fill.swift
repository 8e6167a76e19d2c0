import Vips

extension ImageProcessors {
  /// Covers the format's size and crops what overflows: the output is exactly the
  /// format's pixel size. `crop` chooses what stays: the centre, what draws the eye
  /// (`attention`: faces, skin, saturated colour) or the most detail (`entropy`).
  public struct Fill: SourceGeometryProcessor {
    public static let definition = ProcessorDefinition(
      name: "fill", version: 2, summary: "Cover the format's size and crop the overflow.",
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

    /// Fill resamples: the photo (or the crop before it) shrinks by the smaller of its
    /// two shrinks, as thumbnail's crop mode does.
    public func plan(_ geometry: SourceGeometry, context: ProcessingContext) -> GeometryStep {
      .resample(shrink: sizes(geometry, context: context).commonShrink)
    }

    func sizes(_ geometry: SourceGeometry, context: ProcessingContext) -> ThumbnailGeometry {
      ThumbnailGeometry(
        width: geometry.region.width, height: geometry.region.height,
        box: (context.pixelWidth, context.pixelHeight), covers: true)
    }

    /// One resample to thumbnail's covering size (computed from the photo, not the
    /// decode), then one crop: libvips's `thumbnail --crop` of the photo.
    public func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
      let crop = Interesting(rawValue: arguments.word("crop")) ?? .centre
      let geometry = context.geometry(of: image)
      let sizes = sizes(geometry, context: context)
      // The resample lands on `sizes` exactly, so a centre or attention window is known
      // before it: only the window is resampled (the same pixels as cropping after).
      let width = min(context.pixelWidth, sizes.width)
      let height = min(context.pixelHeight, sizes.height)
      switch crop {
      case .entropy, .none:
        return try sizes.resample(image, geometry: geometry)
          .smartCropped(width: width, height: height, interesting: crop)
      case .centre:
        let window = PixelRect(
          x: (sizes.width - width) / 2, y: (sizes.height - height) / 2, width: width,
          height: height)
        return try sizes.resample(image, geometry: geometry, window: window)
      case .attention:
        // libvips's attention measure looks at a 32-pixel miniature and only the window's
        // share of the image matters: every format of this shape shares one analysis of
        // the decode, kept in the fill's memo, at the fraction of the image it found.
        let aspect = Double(width) / Double(height)
        let window = (
          width: max(1, min(image.width, Int((Double(image.height) * aspect).rounded()))),
          height: max(1, min(image.height, Int((Double(image.width) / aspect).rounded())))
        )
        let key = "fill.attention:\(window.width)x\(window.height)"
        // The memo holds analyses of the image the context describes, not of another
        // (a cut-out a processor made and fills).
        let memo = context.describes(image) ? context.memo : nil
        let found = try (memo ?? ProcessingMemo()).value(key) {
          let point = try image.managedAttentionCentre(
            width: window.width, height: window.height)
          return [Double(point.x) / Double(image.width), Double(point.y) / Double(image.height)]
        }
        let centre = (x: found[0] * Double(sizes.width), y: found[1] * Double(sizes.height))
        let left = min(
          max(0, Int((centre.x - Double(width) / 2).rounded(.down))), sizes.width - width)
        let top = min(
          max(0, Int((centre.y - Double(height) / 2).rounded(.down))), sizes.height - height)
        return try sizes.resample(
          image, geometry: geometry,
          window: PixelRect(x: left, y: top, width: width, height: height))
      }
    }
  }
}

import Vips

extension ImageProcessors {
  /// Fits inside the format's size, keeping the aspect ratio and cropping nothing. The
  /// result may be smaller than the slot (the table records its size); a small image
  /// keeps its size unless `enlarge` is true.
  public struct Fit: SourceGeometryProcessor {
    public static let definition = ProcessorDefinition(
      name: "fit", version: 2, summary: "Fit inside the format's size; no crop, may be smaller.",
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

    /// Fit resamples: the photo (or the crop before it) shrinks by the larger of its
    /// two shrinks, as thumbnail's fit mode does.
    public func plan(_ geometry: SourceGeometry, context: ProcessingContext) -> GeometryStep {
      .resample(shrink: sizes(geometry, context: context).commonShrink)
    }

    func sizes(_ geometry: SourceGeometry, context: ProcessingContext) -> ThumbnailGeometry {
      ThumbnailGeometry(
        width: geometry.region.width, height: geometry.region.height,
        box: (context.pixelWidth, context.pixelHeight), covers: false,
        enlarges: arguments.bool("enlarge"))
    }

    /// One resample to thumbnail's size for the photo (not the decode): the entry is
    /// exactly as large as libvips's `thumbnail` of the photo would be.
    public func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
      let geometry = context.geometry(of: image)
      return try sizes(geometry, context: context).resample(image, geometry: geometry)
    }
  }
}

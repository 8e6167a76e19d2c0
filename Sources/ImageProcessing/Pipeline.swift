import Vips

/// Processors run one after another: a format's look.
public struct Pipeline: Sendable {
  /// The spec it was built from.
  public let spec: String
  public let processors: [any ImageProcessor]
  /// How each processor was made, in order: its registered name, definition version
  /// and checked arguments (nil for a processor given to ``init(spec:processors:)``).
  public let arguments: [ProcessorArguments?]

  /// A pipeline of processors made by hand: each one's `identifier` alone names it in
  /// the fingerprint.
  public init(spec: String, processors: [any ImageProcessor]) {
    self.spec = spec
    self.processors = processors
    arguments = Array(repeating: nil, count: processors.count)
  }

  /// A pipeline of registered processors, each with the arguments it was made from
  /// (what ``ProcessorRegistry/pipeline(_:)`` builds).
  public init(spec: String, steps: [(arguments: ProcessorArguments, processor: any ImageProcessor)])
  {
    self.spec = spec
    processors = steps.map(\.processor)
    arguments = steps.map(\.arguments)
  }

  /// What a format's fingerprint records of each processor, in order: its registered
  /// name, definition version and arguments (``ProcessorArguments/identifier``),
  /// whatever its `identifier` says, and after ` + ` its `identifier` when that says
  /// more. So raising a ``ProcessorDefinition/version`` or changing an argument always
  /// re-renders, and a processor's `identifier` can only add to what is recorded.
  public var identifiers: [String] {
    zip(processors, arguments).map { processor, arguments in
      guard let arguments else { return processor.identifier }
      let own = processor.identifier
      return own.isEmpty || own == arguments.identifier
        ? arguments.identifier : "\(arguments.identifier) + \(own)"
    }
  }

  /// Each step as a spec names it, joined by ` | `: a spec that builds the same pipeline
  /// (from the same registry).
  public var identifier: String {
    zip(processors, arguments).map { $1?.identifier ?? $0.identifier }
      .joined(separator: " | ")
  }

  /// Whether the pipeline resamples before any processor looks at the pixels: every
  /// processor up to its first resample plans its geometry (``SourceGeometryProcessor``:
  /// crops in the photo's coordinates, then a fill or fit). A decode for such a
  /// pipeline may keep the photo's ICC profile, which the resample then applies to its
  /// result (``ThumbnailGeometry/resample(_:geometry:window:)``).
  public func resamplesFirst(
    photoWidth width: Int, photoHeight height: Int, context: ProcessingContext
  ) -> Bool {
    let plan = firstResample(photoWidth: width, photoHeight: height, context: context)
    return plan.shrink != nil && !plan.looksFirst
  }

  /// How much this pipeline shrinks a photo of `width` by `height` (as displayed) at
  /// most, in photo pixels per output pixel: what the family's decode may shrink on load.
  /// Steps are planned up to the first that resamples (``SourceGeometryProcessor``); a
  /// pipeline with none needs the photo to cover the format's box.
  public func decodeShrink(
    photoWidth width: Int, photoHeight height: Int, context: ProcessingContext
  )
    -> Double
  {
    let plan = firstResample(photoWidth: width, photoHeight: height, context: context)
    return plan.shrink
      ?? ThumbnailGeometry(
        width: plan.geometry.region.width, height: plan.geometry.region.height,
        box: (context.pixelWidth, context.pixelHeight), covers: true
      ).commonShrink
  }

  /// The geometry steps planned up to the first resample: its shrink (nil when no step
  /// resamples), the region the steps before it leave, and whether a processor that
  /// plans no geometry (one that looks at the pixels) comes before it.
  private func firstResample(
    photoWidth width: Int, photoHeight height: Int, context: ProcessingContext
  ) -> (shrink: Double?, geometry: SourceGeometry, looksFirst: Bool) {
    var geometry = SourceGeometry(photoWidth: width, photoHeight: height)
    var looksFirst = false
    for processor in processors {
      guard let planned = processor as? any SourceGeometryProcessor else {
        looksFirst = true
        continue
      }
      switch planned.plan(geometry, context: context) {
      case .region(let region): geometry = region
      case .resample(let shrink): return (shrink, geometry, looksFirst)
      }
    }
    return (nil, geometry, looksFirst)
  }

  /// Runs every processor in turn. An error names the processor and the entity.
  ///
  /// `context.geometry` says where `image` comes from in the photo (nil: it is the
  /// photo); it follows the image from step to step: a crop narrows it, a resample
  /// ends it, and so does a step that hands back an image of its own making (a plugin,
  /// a processor that is no ``SourceGeometryProcessor`` nor ``SameGeometryProcessor``):
  /// later steps see that image's own pixels. A context that describes another image
  /// than `image` (a processor running a pipeline on a cut-out it made) runs it
  /// without that image's geometry and memo (``ProcessingContext/bound(to:)``).
  public func process(_ image: VipsImage, context: ProcessingContext) throws(ProcessingError)
    -> VipsImage
  {
    var current = image
    var context = context.bound(to: image)
    for processor in processors {
      do {
        let input = current
        current = try processor.process(input, context: context)
        if let geometry = context.geometry {
          if let planned = processor as? any SourceGeometryProcessor {
            switch planned.plan(geometry, context: context) {
            case .region(let region): context.geometry = region
            case .resample: context.geometry = nil
            }
          } else if !current.isSameImage(as: input)
            && (!(processor is any SameGeometryProcessor)
              || (input.width, input.height) != (current.width, current.height))
          {
            context.geometry = nil
          }
        }
        // The geometry now describes the step's image (or is gone); the memo stays
        // with the fill's formats, whatever a step drew.
        context.describe(current)
      } catch let error as VipsError {
        throw .processorFailed(
          processor: processor.identifier, entityID: context.entityID, reason: error.reason)
      } catch {
        throw .processorFailed(
          processor: processor.identifier, entityID: context.entityID, reason: "\(error)")
      }
    }
    return current
  }
}

import Vips

/// Processors run one after another: a format's look.
public struct Pipeline: Sendable {
  /// The spec it was built from.
  public let spec: String
  public let processors: [any ImageProcessor]

  public init(spec: String, processors: [any ImageProcessor]) {
    self.spec = spec
    self.processors = processors
  }

  /// Each processor's identifier, in order: what a format's fingerprint records.
  public var identifiers: [String] { processors.map(\.identifier) }

  /// The identifiers joined by ` | `: a spec that builds the same pipeline.
  public var identifier: String { identifiers.joined(separator: " | ") }

  /// Runs every processor in turn. An error names the processor and the entity.
  public func process(_ image: VipsImage, context: ProcessingContext) throws(ProcessingError)
    -> VipsImage
  {
    var current = image
    for processor in processors {
      do {
        current = try processor.process(current, context: context)
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

/// Why an entry could not be drawn. The description leaves out the format (its
/// `format` value has it) so that callers can name it once.
public enum ProcessingError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A processor failed on an entity's image.
  case processorFailed(processor: String, entityID: String, reason: String)
  /// The pipeline's result does not fit the format's slot.
  case largerThanSlot(format: String, width: Int, height: Int, slotWidth: Int, slotHeight: Int)
  /// The image could not be turned into the style's bytes.
  case rasterizeFailed(format: String, reason: String)

  public var description: String {
    switch self {
    case .processorFailed(let processor, let entityID, let reason):
      (entityID.isEmpty ? "" : "\(entityID): ") + "processor \(processor) failed: \(reason)"
    case .largerThanSlot(_, let width, let height, let slotWidth, let slotHeight):
      "the pipeline made \(width)x\(height), larger than the \(slotWidth)x\(slotHeight) slot; "
        + "start the pipeline with fill or fit"
    case .rasterizeFailed(_, let reason):
      "could not write the pixels: \(reason)"
    }
  }
}

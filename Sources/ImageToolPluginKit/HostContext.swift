import ImageProcessing
import ImageTables
import ImageToolPluginABI

/// The interface's context of one `process` call as this library's ``ProcessingContext``.
enum HostContext {
  static func processingContext(_ c: ImageToolContext) -> ProcessingContext {
    func text(_ pointer: UnsafePointer<CChar>?) -> String {
      pointer.map { String(cString: $0) } ?? ""
    }
    return ProcessingContext(
      formatName: text(c.format_name), family: text(c.family),
      pixelWidth: Int(c.pixel_width), pixelHeight: Int(c.pixel_height), scale: Int(c.scale),
      style: PixelStyle(rawValue: text(c.style)) ?? .bgra32, entityID: text(c.entity_id),
      background: RGBA(c.background.0, c.background.1, c.background.2, c.background.3))
  }
}

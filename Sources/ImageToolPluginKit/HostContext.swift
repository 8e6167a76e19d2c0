import ImageProcessing
import ImageTables
import ImageToolPluginABI

/// The interface's context of one `process` call as this library's ``ProcessingContext``.
enum HostContext {
  /// Why the host's context cannot be read (a host newer than this library).
  struct Unknown: Error, CustomStringConvertible {
    let description: String
  }

  static func processingContext(_ c: ImageToolContext) throws(Unknown) -> ProcessingContext {
    func text(_ pointer: UnsafePointer<CChar>?) -> String {
      pointer.map { String(cString: $0) } ?? ""
    }
    guard let style = PixelStyle(rawValue: text(c.style)) else {
      throw Unknown(
        description: "the host draws for style '\(text(c.style))', which this plugin does not "
          + "know; rebuild it against the ImageTool of this imgtool")
    }
    return ProcessingContext(
      formatName: text(c.format_name), family: text(c.family),
      pixelWidth: Int(c.pixel_width), pixelHeight: Int(c.pixel_height), scale: Int(c.scale),
      style: style, entityID: text(c.entity_id),
      background: RGBA(c.background.0, c.background.1, c.background.2, c.background.3))
  }
}

import Foundation
import ImageProcessing
import ImageTables
import ImageToolPluginABI
import Vips

/// One processor a host made through the interface: the state `create` returns and
/// `process` and `destroy` get back.
final class ExportedProcessor: Sendable {
  let processor: any ImageProcessor

  init(_ processor: any ImageProcessor) { self.processor = processor }

  /// Makes the processor of the definition in `slot` from the host's checked
  /// arguments; nil, with why in `error`, when the definition refuses them.
  static func create(
    slot: Int, _ arguments: UnsafePointer<ImageToolArgument>?, _ count: Int32,
    _ message: UnsafeMutablePointer<CChar>?, _ messageSize: Int
  ) -> UnsafeMutableRawPointer? {
    guard let definition = ExportedDefinitions.shared.definition(in: slot) else {
      write("no processor is defined in slot \(slot)", to: message, size: messageSize)
      return nil
    }
    do {
      let texts = (0..<Int(max(0, count))).compactMap { index -> (String, String)? in
        guard let argument = arguments?[index], let name = argument.name,
          let value = argument.value
        else { return nil }
        return (String(cString: name), String(cString: value))
      }
      let checked = try HostArguments.arguments(texts, of: definition)
      let processor = try definition.make(checked)
      return Unmanaged.passRetained(ExportedProcessor(processor)).toOpaque()
    } catch {
      write("\(error)", to: message, size: messageSize)
      return nil
    }
  }

  static let process:
    @convention(c) (
      UnsafeMutableRawPointer?, UnsafeMutableRawPointer?,
      UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafePointer<ImageToolContext>?,
      UnsafeMutablePointer<CChar>?, Int
    ) -> Int32 = { state, input, output, context, message, messageSize in
      guard let state, let input, let output, let context else {
        write("the host passed no state, image or context", to: message, size: messageSize)
        return 1
      }
      let exported = Unmanaged<ExportedProcessor>.fromOpaque(state).takeUnretainedValue()
      do {
        let processingContext = try HostContext.processingContext(context.pointee)
        // The host's image, seen through this library's own Vips types; the result
        // goes back as a C image with a reference the host takes.
        let image = VipsImage(borrowing: input, source: processingContext.entityID)
        let result = try exported.processor.process(image, context: processingContext)
        output.pointee = result.retainedVipsImagePointer()
        return 0
      } catch {
        write("\(error)", to: message, size: messageSize)
        return 1
      }
    }

  static let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { state in
    guard let state else { return }
    Unmanaged<ExportedProcessor>.fromOpaque(state).release()
  }

  /// Copies `message` into the host's buffer, cut to fit and NUL-terminated.
  static func write(_ message: String, to buffer: UnsafeMutablePointer<CChar>?, size: Int) {
    guard let buffer, size > 0 else { return }
    _ = message.withCString { strncpy(buffer, $0, size - 1) }
    buffer[size - 1] = 0
  }
}

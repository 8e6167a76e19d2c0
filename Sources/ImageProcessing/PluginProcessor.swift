import Foundation
import ImageToolPluginABI
import Vips

/// A processor that lives in a plugin library, called through the C interface.
final class PluginProcessor: ImageProcessor, @unchecked Sendable {
  // Safety of @unchecked Sendable: the plugin's `process` is documented as callable
  // from many threads; `state` is only passed back to it.
  let identifier: String
  private let state: UnsafeMutableRawPointer
  private let processFunction:
    @convention(c) (
      UnsafeMutableRawPointer?, UnsafeMutableRawPointer?,
      UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafePointer<ImageToolContext>?,
      UnsafeMutablePointer<CChar>?, Int
    ) -> Int32
  private let destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?

  init(
    identifier: String, state: UnsafeMutableRawPointer,
    process:
      @escaping @convention(c) (
        UnsafeMutableRawPointer?, UnsafeMutableRawPointer?,
        UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafePointer<ImageToolContext>?,
        UnsafeMutablePointer<CChar>?, Int
      ) -> Int32,
    destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
  ) {
    self.identifier = identifier
    self.state = state
    self.processFunction = process
    self.destroy = destroy
  }

  deinit { destroy?(state) }

  func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
    var error = [CChar](repeating: 0, count: 512)
    var output: UnsafeMutableRawPointer? = nil
    let status = context.formatName.withCString { format in
      context.family.withCString { family in
        context.style.rawValue.withCString { style in
          context.entityID.withCString { entity in
            var cContext = ImageToolContext(
              format_name: format, family: family, style: style, entity_id: entity,
              pixel_width: Int32(context.pixelWidth), pixel_height: Int32(context.pixelHeight),
              scale: Int32(context.scale),
              background: (
                context.background.red, context.background.green, context.background.blue,
                context.background.alpha
              ))
            return image.withUnsafeVipsImagePointer { input in
              processFunction(state, input, &output, &cContext, &error, error.count)
            }
          }
        }
      }
    }
    guard status == 0, let output else {
      throw ArgumentProblem(
        PluginLoader.message(in: error, otherwise: "the plugin failed without a message"))
    }
    return image.adoptingDerivedImage(output)
  }
}

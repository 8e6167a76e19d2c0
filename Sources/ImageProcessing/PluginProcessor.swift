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
  /// Where the pipelines a plugin asks the host to run come from.
  private let registry: ProcessorRegistry

  init(
    identifier: String, state: UnsafeMutableRawPointer,
    process:
      @escaping @convention(c) (
        UnsafeMutableRawPointer?, UnsafeMutableRawPointer?,
        UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafePointer<ImageToolContext>?,
        UnsafeMutablePointer<CChar>?, Int
      ) -> Int32,
    destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
    registry: ProcessorRegistry
  ) {
    self.identifier = identifier
    self.state = state
    self.processFunction = process
    self.destroy = destroy
    self.registry = registry
  }

  deinit { destroy?(state) }

  func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
    var error = [CChar](repeating: 0, count: 512)
    var output: UnsafeMutableRawPointer? = nil
    // Outside a fill, the memo lives for this call; the host's processors share it.
    // The context is about this call's input: a pipeline the plugin runs on another
    // image (a cut-out) gets that image's own geometry (Pipeline.process).
    var shared = context.bound(to: image)
    shared.memo = context.memo ?? ProcessingMemo()
    let services = PluginServices(image: image, context: shared, registry: registry)
    let status = withExtendedLifetime(services) {
      context.formatName.withCString { format in
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
                ),
                host_state: Unmanaged.passUnretained(services).toOpaque(),
                memo_lookup: PluginServices.memoLookup, memo_store: PluginServices.memoStore,
                run_pipeline: PluginServices.runPipeline)
              return image.withUnsafeVipsImagePointer { input in
                processFunction(state, input, &output, &cContext, &error, error.count)
              }
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

/// What the host offers a plugin during one `process` call (interface version 2): the
/// fill's memo and the host's own processors.
private final class PluginServices: @unchecked Sendable {
  // Safety of @unchecked Sendable: made for one call and used on its thread; the memo
  // and the registry are themselves thread-safe.
  let image: VipsImage
  let context: ProcessingContext
  let memo: ProcessingMemo
  let registry: ProcessorRegistry

  init(image: VipsImage, context: ProcessingContext, registry: ProcessorRegistry) {
    self.image = image
    self.context = context
    self.memo = context.memo ?? ProcessingMemo()
    self.registry = registry
  }

  static func from(_ state: UnsafeMutableRawPointer) -> PluginServices {
    Unmanaged<PluginServices>.fromOpaque(state).takeUnretainedValue()
  }

  static let memoLookup:
    @convention(c) (
      UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<Double>?, Int32
    )
      -> Int32 = { state, key, values, capacity in
        guard let state, let key else { return -1 }
        guard let found = from(state).memo.stored(String(cString: key)) else { return -1 }
        if let values {
          for (index, value) in found.prefix(Int(max(0, capacity))).enumerated() {
            values[index] = value
          }
        }
        return Int32(clamping: found.count)
      }

  static let memoStore:
    @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<Double>?, Int32)
      -> Int32 = { state, key, values, count in
        guard let state, let key else { return -1 }
        let stored = values.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(0, count)))) }
        from(state).memo.store(String(cString: key), stored ?? [])
        return 0
      }

  static let runPipeline:
    @convention(c) (
      UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?,
      UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafeMutablePointer<CChar>?, Int
    ) -> Int32 = { state, spec, input, output, message, messageSize in
      guard let state, let spec, let input, let output else { return -1 }
      let services = from(state)
      do {
        let pipeline = try services.registry.pipeline(String(cString: spec))
        let result = try pipeline.process(
          services.image.borrowingDerivedImage(input), context: services.context)
        output.pointee = result.retainedVipsImagePointer()
        return 0
      } catch {
        if let message, messageSize > 0 {
          _ = "\(error)".withCString { strncpy(message, $0, messageSize - 1) }
          message[messageSize - 1] = 0
        }
        return 1
      }
    }
}

import ImageProcessing
import ImageToolPluginABI

/// Swift processors as an `imgtool` plugin: the ``ProcessorDefinition``s an app
/// registers in its own process, offered through the C interface of
/// `ImageToolPlugin.h`, so that `imgtool --plugin` and a manifest's `"plugins"` load
/// them.
///
/// A plugin is a `.library(type: .dynamic)` product whose target depends on this
/// module and exports the interface's two functions, each one line:
///
/// <!-- snippet scope: file -->
/// ```swift
/// import ImageProcessing
/// import ImageToolPluginKit
/// import Vips
///
/// struct Invert: ImageProcessor {
///   let identifier: String
///   func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
///     // 255 - each colour band; an alpha band, if there is one, is kept as it is.
///     let srgb = try image.toSRGB()
///     let alpha = srgb.hasAlpha
///     return try srgb.linear(
///       alpha ? [-1, -1, -1, 1] : [-1, -1, -1], alpha ? [255, 255, 255, 0] : [255, 255, 255],
///       clampToUInt8: true)
///   }
/// }
///
/// let plugin = ProcessorPlugin([
///   ProcessorDefinition(name: "invert", summary: "Negative.") { arguments in
///     Invert(identifier: arguments.identifier)
///   }
/// ])
///
/// @_cdecl("imagetool_plugin_abi_version")
/// public func pluginABIVersion() -> UInt32 { ProcessorPlugin.abiVersion }
///
/// @_cdecl("imagetool_plugin_register")
/// public func pluginRegister(_ host: UnsafeRawPointer?) -> Int32 { plugin.register(host) }
/// ```
///
/// The library links its own copy of the Swift modules it imports (`ImageProcessing`,
/// `Vips`...), so no Swift value crosses between it and `imgtool`: arguments cross as
/// text, images as libvips `VipsImage *` (libvips itself is one shared library in the
/// process), and each side wraps them in its own types. A processor's errors reach
/// `imgtool` as their descriptions. The ``ProcessingContext`` a processor gets has
/// what the interface carries (format, family, size, scale, style, entity,
/// background); its `memo` and `geometry` are nil.
///
/// The plugin's Swift code is its own copy; the C functions of `CVipsShim` it calls
/// resolve to `imgtool`'s copy, which is loaded first and globally. Build a plugin
/// from the same ImageTool as the `imgtool` that loads it.
public struct ProcessorPlugin: Sendable {
  /// The interface version a Swift plugin declares: the first, which every `imgtool`
  /// loads.
  public static let abiVersion = UInt32(IMAGETOOL_PLUGIN_ABI_VERSION_1)
  /// How many processors one plugin library may define.
  public static let capacity = CreateTrampolines.count

  /// The processors, in the order they register.
  public let definitions: [ProcessorDefinition]

  /// A plugin of these definitions; at most ``capacity`` of them, with distinct names.
  public init(_ definitions: [ProcessorDefinition]) {
    self.definitions = definitions
  }

  /// Registers every definition with the host that calls `imagetool_plugin_register`
  /// (its `const ImageToolHost *`); returns 0, 1 when the host refused one (a name it
  /// has already, a parameter it cannot take: the host reports which and why), or 2
  /// when the library defines more than ``capacity`` processors.
  public func register(_ host: UnsafeRawPointer?) -> Int32 {
    guard let host = host?.assumingMemoryBound(to: ImageToolHost.self),
      host.pointee.abi_version == Self.abiVersion,
      let registerProcessor = host.pointee.register_processor
    else { return 1 }
    for definition in definitions {
      guard let slot = ExportedDefinitions.shared.slot(for: definition) else { return 2 }
      var error = [CChar](repeating: 0, count: 512)
      let status = CDefinition(definition).withC(create: CreateTrampolines.functions[slot]) {
        registerProcessor(host.pointee.host, $0, &error, error.count)
      }
      guard status == 0 else { return 1 }
    }
    return 0
  }
}

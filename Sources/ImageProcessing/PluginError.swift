/// Why a plugin library could not be loaded or registered.
public enum PluginError: Error, Sendable, Equatable, CustomStringConvertible {
  case fileNotFound(path: String)
  case notLoadable(path: String, message: String)
  case missingEntryPoint(path: String, symbol: String)
  case abiMismatch(path: String, plugin: UInt32, host: UInt32)
  case registrationFailed(path: String, message: String)

  public var description: String {
    switch self {
    case .fileNotFound(let path):
      "plugin \(path): no such file"
    case .notLoadable(let path, let message):
      "plugin \(path): cannot be loaded as a shared library: \(message)"
    case .missingEntryPoint(let path, let symbol):
      "plugin \(path): it does not export '\(symbol)'; is it an imgtool plugin? "
        + "(see Examples/CustomProcessor)"
    case .abiMismatch(let path, let plugin, let host):
      "plugin \(path): built for plugin interface version \(plugin), this imgtool loads "
        + "versions \(PluginLoader.supportedABIVersions.lowerBound) to \(host); rebuild the plugin against this imgtool's ImageToolPlugin.h"
    case .registrationFailed(let path, let message):
      "plugin \(path): \(message)"
    }
  }
}

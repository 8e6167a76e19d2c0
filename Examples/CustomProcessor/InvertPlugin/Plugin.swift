// The plugin: `swift build --product InvertPlugin`, then
// `imgtool --plugin .build/debug/libInvertPlugin.so ...` or a manifest's "plugins".

import ImageToolPluginKit

let plugin = ProcessorPlugin([Invert.definition])

@_cdecl("imagetool_plugin_abi_version")
public func invertPluginABIVersion() -> UInt32 { ProcessorPlugin.abiVersion }

@_cdecl("imagetool_plugin_register")
public func invertPluginRegister(_ host: UnsafeRawPointer?) -> Int32 { plugin.register(host) }

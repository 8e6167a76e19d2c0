import Foundation
import ImageToolPluginABI

/// Loads processor plugins: shared libraries that register processors through the C
/// interface in `ImageToolPlugin.h`.
///
/// <!-- snippet context: let registry = ProcessorRegistry.withBuiltIns() -->
/// ```swift
/// let names = try PluginLoader.load(path: "libSepiaPlugin.so", into: registry)
/// ```
public enum PluginLoader {
  /// The newest interface version this build speaks.
  public static let abiVersion = UInt32(IMAGETOOL_PLUGIN_ABI_VERSION)
  /// Every version this build loads: plugins built for an older one still load.
  public static let supportedABIVersions = UInt32(IMAGETOOL_PLUGIN_ABI_VERSION_1)...abiVersion
  static let versionSymbol = "imagetool_plugin_abi_version"
  static let registerSymbol = "imagetool_plugin_register"

  /// Loads the library at `path` and registers its processors; returns their names.
  /// The library stays loaded for the life of the process.
  @discardableResult
  public static func load(path: String, into registry: ProcessorRegistry) throws(PluginError)
    -> [String]
  {
    guard FileManager.default.fileExists(atPath: path) else { throw .fileNotFound(path: path) }
    let names = try loadLibrary(path: path, into: registry)
    registry.loadedPlugins.withLock { $0[resolvedPath(path)] = names }
    return names
  }

  /// Loads the library at `path` unless this registry already has it (the same file,
  /// by any path, loaded with `load` or `loadOnce`); returns the names it registered.
  /// A manifest's plugins load this way, so naming one with `--plugin` too is no error.
  @discardableResult
  public static func loadOnce(path: String, into registry: ProcessorRegistry) throws(PluginError)
    -> [String]
  {
    guard FileManager.default.fileExists(atPath: path) else { throw .fileNotFound(path: path) }
    if let names = registry.loadedPlugins.withLock({ $0[resolvedPath(path)] }) { return names }
    return try load(path: path, into: registry)
  }

  /// The file's absolute path with symbolic links resolved: one name per library.
  static func resolvedPath(_ path: String) -> String {
    URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
  }

  static func loadLibrary(path: String, into registry: ProcessorRegistry) throws(PluginError)
    -> [String]
  {
    // A path with a slash, so dlopen does not search the library path for a bare name.
    let resolved = path.contains("/") ? path : "./" + path
    if let problem = PluginFileCheck.problem(path: resolved) {
      throw .notLoadable(path: path, message: problem)
    }
    guard let library = dlopen(resolved, RTLD_NOW | RTLD_LOCAL) else {
      throw .notLoadable(
        path: path, message: dlerror().map { String(cString: $0) } ?? "unknown error")
    }
    guard let versionSymbol = dlsym(library, versionSymbol) else {
      throw .missingEntryPoint(path: path, symbol: versionSymbol)
    }
    guard let registerSymbol = dlsym(library, registerSymbol) else {
      throw .missingEntryPoint(path: path, symbol: registerSymbol)
    }
    return try register(
      path: path,
      version: unsafeBitCast(versionSymbol, to: ImageToolPluginABIVersion.self),
      entry: unsafeBitCast(registerSymbol, to: ImageToolPluginRegister.self),
      into: registry)
  }

  /// The NUL-terminated message a plugin wrote into `buffer`, or `fallback` if none.
  static func message(in buffer: [CChar], otherwise fallback: String) -> String {
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return bytes.isEmpty ? fallback : String(decoding: bytes, as: UTF8.self)
  }

  /// Checks the plugin's interface version, then lets it register its processors.
  static func register(
    path: String, version: ImageToolPluginABIVersion, entry: ImageToolPluginRegister,
    into registry: ProcessorRegistry
  ) throws(PluginError) -> [String] {
    let pluginVersion = version()
    guard supportedABIVersions.contains(pluginVersion) else {
      throw .abiMismatch(path: path, plugin: pluginVersion, host: abiVersion)
    }
    let session = RegistrationSession(registry: registry)
    let unmanaged = Unmanaged.passRetained(session)
    defer { unmanaged.release() }
    // The session speaks the plugin's version, so one built for version 1 that checks
    // `abi_version == 1` still registers.
    var host = ImageToolHost(
      abi_version: pluginVersion, host: unmanaged.toOpaque(),
      register_processor: { host, definition, error, errorSize in
        guard let host, let definition else { return -1 }
        let session = Unmanaged<RegistrationSession>.fromOpaque(host).takeUnretainedValue()
        if let message = session.register(definition.pointee) {
          if let error, errorSize > 0 {
            _ = message.withCString { strncpy(error, $0, errorSize - 1) }
            error[errorSize - 1] = 0
          }
          return 1
        }
        return 0
      })
    let status = entry(&host)
    if let failure = session.failures.first {
      throw .registrationFailed(path: path, message: failure)
    }
    guard status == 0 else {
      throw .registrationFailed(path: path, message: "its register function returned \(status)")
    }
    return session.names
  }
}

/// What one plugin registered, while its register function runs (on this thread).
private final class RegistrationSession: @unchecked Sendable {
  // Where the plugin's processors run the host's pipelines from (interface version 2).
  let registry: ProcessorRegistry
  var names: [String] = []
  var failures: [String] = []

  init(registry: ProcessorRegistry) { self.registry = registry }

  /// Registers one C definition; returns why not, or nil.
  func register(_ definition: ImageToolProcessorDefinition) -> String? {
    guard let cName = definition.name, let create = definition.create,
      let process = definition.process
    else {
      failures.append("a processor definition lacks its name, create or process")
      return failures.last
    }
    let name = String(cString: cName)
    var parameters: [ProcessorParameter] = []
    for index in 0..<Int(max(0, definition.parameter_count)) {
      guard let cParameter = definition.parameters?[index] else { break }
      guard let parameter = Self.parameter(cParameter) else {
        failures.append("processor '\(name)': parameter \(index) has an unknown kind")
        return failures.last
      }
      parameters.append(parameter)
    }
    let destroy = definition.destroy
    let processor = ProcessorDefinition(
      name: name, version: Int(definition.version),
      summary: definition.summary.map { String(cString: $0) } ?? "",
      parameters: parameters
    ) { [weak registry] arguments in
      // Weak: the registry holds this definition.
      guard let registry else { throw ArgumentProblem("the processor registry is gone") }
      let texts = arguments.values.map { ($0.0, Self.argumentText($0.1)) }
      var error = [CChar](repeating: 0, count: 512)
      let state = Self.withCArguments(texts) { pointer, count in
        create(pointer, count, &error, error.count)
      }
      guard let state else {
        throw ArgumentProblem(
          PluginLoader.message(in: error, otherwise: "the plugin refused the arguments"))
      }
      return PluginProcessor(
        identifier: arguments.identifier, state: state, process: process, destroy: destroy,
        registry: registry)
    }
    do {
      try registry.register(processor)
    } catch {
      failures.append("processor '\(name)': \(error)")
      return failures.last
    }
    names.append(name)
    return nil
  }

  static func parameter(_ c: ImageToolParameter) -> ProcessorParameter? {
    guard let cName = c.name, let cKind = c.kind else { return nil }
    let kindText = String(cString: cKind)
    let kind: ProcessorParameter.Kind
    switch kindText {
    case "number": kind = .number(c.minimum...max(c.minimum, c.maximum))
    case "integer": kind = .integer(Int(c.minimum)...Int(max(c.minimum, c.maximum)))
    case "string": kind = .string
    case "color": kind = .color
    case "boolean": kind = .boolean
    case _ where kindText.hasPrefix("choice:"):
      kind = .choice(kindText.dropFirst("choice:".count).split(separator: "|").map(String.init))
    default: return nil
    }
    let defaultValue = c.default_value.map { String(cString: $0) }.map { text -> ArgumentValue in
      if let number = Double(text) { return .number(number) }
      if let color = ArgumentValue.parseColor(text) { return .color(color) }
      if case .string = kind { return .string(text) }
      return .word(text)
    }
    return ProcessorParameter(
      String(cString: cName), kind, default: defaultValue,
      c.summary.map { String(cString: $0) } ?? "")
  }

  /// An argument as the C interface gives it: strings and words without quotes.
  static func argumentText(_ value: ArgumentValue) -> String {
    switch value {
    case .string(let text), .word(let text): text
    case .number, .color: value.description
    }
  }

  static func withCArguments<Result>(
    _ arguments: [(String, String)],
    _ body: (UnsafePointer<ImageToolArgument>?, Int32) -> Result
  ) -> Result {
    let strings = arguments.map { (strdup($0.0), strdup($0.1)) }
    defer {
      strings.forEach {
        free($0.0); free($0.1)
      }
    }
    let cArguments = strings.map { ImageToolArgument(name: $0.0, value: $0.1) }
    return cArguments.withUnsafeBufferPointer { body($0.baseAddress, Int32($0.count)) }
  }
}

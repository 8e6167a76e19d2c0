import Locking

/// The processors a pipeline spec can name, by name: the built-ins, your own, and
/// those loaded from plugins.
///
/// <!-- snippet context: import Vips -->
/// <!-- snippet context: struct Invert: ImageProcessor {  // ImageProcessor's example -->
/// <!-- snippet context:   let arguments: ProcessorArguments -->
/// <!-- snippet context:   var identifier: String { arguments.identifier } -->
/// <!-- snippet context:   func process(_ image: VipsImage, context: ProcessingContext) -->
/// <!-- snippet context:     -> VipsImage { image } -->
/// <!-- snippet context: } -->
/// ```swift
/// let registry = ProcessorRegistry.withBuiltIns()
/// try registry.register(
///   ProcessorDefinition(name: "invert", summary: "Negative.") { Invert(arguments: $0) })
/// let pipeline = try registry.pipeline("fill(crop: attention) | invert")
/// ```
public final class ProcessorRegistry: Sendable {
  private let definitions = Lock<[String: ProcessorDefinition]>([:])
  /// The plugin libraries loaded into this registry, by resolved path, with the names
  /// each registered (see ``PluginLoader/loadOnce(path:into:)``).
  let loadedPlugins = Lock<[String: [String]]>([:])

  public init() {}

  /// A registry holding every built-in processor.
  public static func withBuiltIns() -> ProcessorRegistry {
    let registry = ProcessorRegistry()
    for definition in ImageProcessors.builtIns {
      // Built-in names are distinct and valid: registering them cannot fail.
      try! registry.register(definition)
    }
    return registry
  }

  /// Adds `definition`; a taken name is an error unless `replacing` is true.
  public func register(_ definition: ProcessorDefinition, replacing: Bool = false)
    throws(RegistryError)
  {
    guard Self.isValidName(definition.name) else { throw .invalidName(definition.name) }
    for parameter in definition.parameters {
      guard Self.isValidName(parameter.name) else {
        throw .invalidParameter(
          processor: definition.name, parameter: parameter.name, reason: "not a valid name")
      }
      if let value = parameter.defaultValue, case .failure(let problem) = parameter.accept(value) {
        throw .invalidParameter(
          processor: definition.name, parameter: parameter.name, reason: problem.message)
      }
    }
    try definitions.withLock { definitions throws(RegistryError) in
      if definitions[definition.name] != nil, !replacing { throw .nameTaken(definition.name) }
      definitions[definition.name] = definition
    }
  }

  /// Every registered processor, by name.
  public var all: [ProcessorDefinition] {
    definitions.withLock { $0.values.sorted { $0.name < $1.name } }
  }

  public func definition(named name: String) -> ProcessorDefinition? {
    definitions.withLock { $0[name] }
  }

  /// Builds the pipeline a spec describes; every error gives its column.
  public func pipeline(_ text: String) throws(PipelineError) -> Pipeline {
    let spec = try PipelineSpec(parsing: text)
    var steps: [(arguments: ProcessorArguments, processor: any ImageProcessor)] = []
    for call in spec.calls {
      guard let definition = definition(named: call.name) else {
        throw .unknownProcessor(
          spec: text, column: call.column, name: call.name,
          suggestions: Suggestion.closest(to: call.name, among: all.map(\.name), limit: 2))
      }
      let arguments = try Self.arguments(of: call, for: definition, spec: text)
      do {
        steps.append((arguments, try definition.make(arguments)))
      } catch {
        throw .processorFailed(
          spec: text, column: call.column, processor: call.name, message: "\(error)")
      }
    }
    return Pipeline(spec: text, steps: steps)
  }

  /// Checks a call's arguments against the definition and fills in defaults.
  static func arguments(
    of call: PipelineSpec.Call, for definition: ProcessorDefinition, spec: String
  )
    throws(PipelineError) -> ProcessorArguments
  {
    if let version = call.version, version != definition.version {
      throw .invalidArgument(
        spec: spec, column: call.column, processor: call.name,
        message:
          "this spec asks for version \(version); the registered one is version \(definition.version)"
      )
    }
    var given: [String: ArgumentValue] = [:]
    for argument in call.arguments {
      guard let parameter = definition.parameters.first(where: { $0.name == argument.name }) else {
        let names = definition.parameters.map(\.name)
        let hint =
          Suggestion.closest(to: argument.name, among: names).map { "; did you mean '\($0)'?" }
          ?? (names.isEmpty ? "; it takes none" : "; it takes \(names.joined(separator: ", "))")
        throw .invalidArgument(
          spec: spec, column: argument.column, processor: call.name,
          message: "no parameter '\(argument.name)'\(hint)")
      }
      guard given[argument.name] == nil else {
        throw .invalidArgument(
          spec: spec, column: argument.column, processor: call.name,
          message: "'\(argument.name)' is given twice")
      }
      switch parameter.accept(argument.value) {
      case .success(let value): given[argument.name] = value
      case .failure(let problem):
        throw .invalidArgument(
          spec: spec, column: argument.valueColumn, processor: call.name, message: problem.message)
      }
    }
    var values: [(String, ArgumentValue)] = []
    for parameter in definition.parameters {
      guard let value = given[parameter.name] ?? parameter.defaultValue else {
        throw .invalidArgument(
          spec: spec, column: call.column, processor: call.name,
          message: "missing '\(parameter.name):' (\(parameter.kind))")
      }
      values.append((parameter.name, value))
    }
    return ProcessorArguments(
      processorName: definition.name, version: definition.version, values: values)
  }

  static func isValidName(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, first.properties.isAlphabetic, first.isASCII else {
      return false
    }
    return name.unicodeScalars.allSatisfy {
      $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_")
    }
  }
}

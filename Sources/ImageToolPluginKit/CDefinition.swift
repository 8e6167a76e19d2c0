import Foundation
import ImageProcessing
import ImageToolPluginABI

/// A ``ProcessorDefinition`` as the C interface writes it: its parameters' kinds,
/// defaults and ranges as text and numbers, for the one `register_processor` call
/// (the host copies every string during it).
struct CDefinition {
  let definition: ProcessorDefinition

  init(_ definition: ProcessorDefinition) { self.definition = definition }

  /// Calls `body` with the C definition, its strings alive during the call.
  func withC<Result>(
    create: CreateTrampolines.Function,
    _ body: (UnsafePointer<ImageToolProcessorDefinition>) -> Result
  ) -> Result {
    var strings: [UnsafeMutablePointer<CChar>] = []
    defer { strings.forEach { free($0) } }
    func c(_ text: String) -> UnsafeMutablePointer<CChar> {
      let copy = strdup(text)!
      strings.append(copy)
      return copy
    }
    let parameters = definition.parameters.map { parameter in
      let (kind, minimum, maximum) = Self.kind(parameter.kind)
      return ImageToolParameter(
        name: c(parameter.name), kind: c(kind),
        default_value: parameter.defaultValue.map { c(Self.text($0)) }, minimum: minimum,
        maximum: maximum, summary: c(parameter.summary))
    }
    return parameters.withUnsafeBufferPointer { cParameters in
      var cDefinition = ImageToolProcessorDefinition(
        name: c(definition.name), version: Int32(clamping: definition.version),
        summary: c(definition.summary), parameters: cParameters.baseAddress,
        parameter_count: Int32(cParameters.count), create: create,
        process: ExportedProcessor.process, destroy: ExportedProcessor.destroy)
      return body(&cDefinition)
    }
  }

  /// The interface's name of a kind, and its range for numbers.
  static func kind(_ kind: ProcessorParameter.Kind) -> (String, Double, Double) {
    switch kind {
    case .number(let range): ("number", range.lowerBound, range.upperBound)
    case .integer(let range): ("integer", Double(range.lowerBound), Double(range.upperBound))
    case .string: ("string", 0, 0)
    case .color: ("color", 0, 0)
    case .boolean: ("boolean", 0, 0)
    case .choice(let words): ("choice:" + words.joined(separator: "|"), 0, 0)
    }
  }

  /// A value as the interface writes it: strings and words bare, numbers and colours
  /// as a spec writes them.
  static func text(_ value: ArgumentValue) -> String {
    switch value {
    case .string(let text), .word(let text): text
    case .number, .color: value.description
    }
  }
}

/// The built-in processors, one type each (`ImageProcessors.Fill`, `ImageProcessors.Circle`...).
///
/// Lengths (`radius`, `width` of a border, `sigma`) are in points: a processor
/// multiplies them by the format's scale, so a pipeline looks the same at 1x and 3x.
public enum ImageProcessors {
  /// Every built-in, as registered by ``ProcessorRegistry/withBuiltIns()``.
  public static let builtIns: [ProcessorDefinition] = [
    Fill.definition, Fit.definition, Crop.definition, Circle.definition,
    RoundedCorners.definition, Border.definition, Grayscale.definition, Blur.definition,
    Sharpen.definition, Flatten.definition,
  ]

  /// The arguments a built-in gets when made in Swift rather than from a spec.
  static func arguments(_ definition: ProcessorDefinition, _ values: [String: ArgumentValue])
    -> ProcessorArguments
  {
    ProcessorArguments(
      processorName: definition.name, version: definition.version,
      values: definition.parameters.map { ($0.name, values[$0.name] ?? $0.defaultValue!) })
  }
}

// A processor plugin for imgtool: `sepia(strength: 0...1)` tones a photo brown like an
// old print. Built as a shared library (`swift build --product SepiaPlugin`), loaded
// with `imgtool --plugin .build/debug/libSepiaPlugin.so ...`.
//
// It talks to imgtool only through the C interface of ImageToolPlugin.h, and to
// libvips directly, so it does not depend on imgtool's Swift types.

import CVips
import CVipsShim
import Foundation
import ImageToolPluginABI

/// What imgtool asks first: which interface this plugin speaks. Sepia needs nothing of
/// version 2 (the fill's memo, the host's processors), so it declares version 1 and loads
/// in every imgtool since the first.
@_cdecl("imagetool_plugin_abi_version")
public func sepiaPluginABIVersion() -> UInt32 {
  IMAGETOOL_PLUGIN_ABI_VERSION_1
}

/// Registers `sepia` with the host.
@_cdecl("imagetool_plugin_register")
public func sepiaPluginRegister(_ host: UnsafePointer<ImageToolHost>?) -> Int32 {
  guard let host, host.pointee.abi_version == IMAGETOOL_PLUGIN_ABI_VERSION_1,
    let register = host.pointee.register_processor
  else { return 1 }
  var error = [CChar](repeating: 0, count: 256)
  return "strength".withCString { strengthName in
    "number".withCString { number in
      "1".withCString { one in
        "How far towards sepia: 0 keeps the photo, 1 is full sepia.".withCString {
          strengthSummary in
          var parameter = ImageToolParameter(
            name: strengthName, kind: number, default_value: one, minimum: 0, maximum: 1,
            summary: strengthSummary)
          return withUnsafePointer(to: &parameter) { parameters in
            "sepia".withCString { name in
              "Tone like an old print (a plugin: Examples/CustomProcessor).".withCString {
                summary in
                var definition = ImageToolProcessorDefinition(
                  name: name, version: 1, summary: summary, parameters: parameters,
                  parameter_count: 1, create: sepiaCreate, process: sepiaProcess,
                  destroy: sepiaDestroy)
                return register(host.pointee.host, &definition, &error, error.count)
              }
            }
          }
        }
      }
    }
  }
}

/// The state of one `sepia` processor: its strength.
private func sepiaCreate(
  _ arguments: UnsafePointer<ImageToolArgument>?, _ count: Int32,
  _ error: UnsafeMutablePointer<CChar>?,
  _ errorSize: Int
) -> UnsafeMutableRawPointer? {
  let strength = UnsafeMutablePointer<Double>.allocate(capacity: 1)
  strength.pointee = 1
  for index in 0..<Int(count) {
    guard let argument = arguments?[index], let name = argument.name, let value = argument.value
    else { continue }
    if strcmp(name, "strength") == 0 { strength.pointee = strtod(value, nil) }
  }
  return UnsafeMutableRawPointer(strength)
}

private func sepiaDestroy(_ state: UnsafeMutableRawPointer?) {
  state?.assumingMemoryBound(to: Double.self).deallocate()
}

/// sRGB in, the sepia matrix mixed with identity by `strength`, alpha kept.
private func sepiaProcess(
  _ state: UnsafeMutableRawPointer?, _ input: UnsafeMutableRawPointer?,
  _ output: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
  _ context: UnsafePointer<ImageToolContext>?,
  _ error: UnsafeMutablePointer<CChar>?, _ errorSize: Int
) -> Int32 {
  guard let state, let input, let output else { return 1 }
  let strength = state.assumingMemoryBound(to: Double.self).pointee
  let sepia: [[Double]] = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]
  var matrix: [Double] = []
  for row in 0..<3 {
    for column in 0..<3 {
      matrix.append((row == column ? 1 - strength : 0) + strength * sepia[row][column])
    }
  }
  var made: [UnsafeMutablePointer<VipsImage>] = []
  defer { made.forEach { g_object_unref($0) } }
  func step(_ call: (UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32)
    -> UnsafeMutablePointer<VipsImage>?
  {
    var out: UnsafeMutablePointer<VipsImage>? = nil
    guard call(&out) == 0, let out else { return nil }
    made.append(out)
    return out
  }
  let image = input.assumingMemoryBound(to: VipsImage.self)
  guard let srgb = step({ cvips_colourspace(image, $0, VIPS_INTERPRETATION_sRGB) }),
    let uchar = step({ cvips_cast(srgb, $0, VIPS_FORMAT_UCHAR, 0) }),
    let colour = step({ cvips_extract_band(uchar, $0, 0, 3) }),
    let matrixImage = step({
      $0.pointee = vips_image_new_matrix_from_array(3, 3, matrix, 9);
      return $0.pointee == nil ? -1 : 0
    }),
    let toned = step({ cvips_recomb(colour, $0, matrixImage) }),
    let rounded = step({ cvips_linear(toned, $0, [1, 1, 1], [0.5, 0.5, 0.5], 3, 1) })
  else {
    if let error, errorSize > 0, let message = vips_error_buffer() {
      strncpy(error, message, errorSize - 1)
      error[errorSize - 1] = 0
    }
    vips_error_clear()
    return 1
  }
  var result = rounded
  if vips_image_get_bands(uchar) == 4 {
    guard let alpha = step({ cvips_extract_band(uchar, $0, 3, 1) }),
      let joined = step({ cvips_bandjoin2(rounded, alpha, $0) })
    else { return 1 }
    result = joined
  }
  guard let tagged = step({ cvips_copy_interpretation(result, $0, VIPS_INTERPRETATION_sRGB) })
  else { return 1 }
  g_object_ref(tagged)  // the host takes this reference
  output.pointee = UnsafeMutableRawPointer(tagged)
  return 0
}

import CVips
import CVipsShim

extension VipsImage {
  /// The string stored under `name` in the image's metadata, if any. libvips carries
  /// metadata from an image to those made from it.
  public func metadata(_ name: String) -> String? {
    guard vips_image_get_typeof(pointer, name) != 0 else { return nil }
    var value: UnsafePointer<CChar>? = nil
    guard vips_image_get_string(pointer, name, &value) == 0, let value else {
      _ = Vips.takeErrorMessage()
      return nil
    }
    return String(cString: value)
  }

  /// A copy with `value` stored under `name` in its metadata; the pixels are shared.
  public func settingMetadata(_ name: String, _ value: String) throws(VipsError) -> VipsImage {
    let copy = try derive("copy") { input, out in cvips_copy(input, out) }
    vips_image_set_string(copy.pointer, name, value)
    return copy
  }
}

extension VipsImage {
  /// Every metadata field of the image and its value as libvips writes it as text
  /// (`vips_image_get_as_string`: a blob as base64), by name.
  var metadataFields: [String: String] {
    guard let names = vips_image_get_fields(pointer) else { return [:] }
    defer { g_strfreev(names) }
    var fields: [String: String] = [:]
    var index = 0
    while let name = names[index] {
      var text: UnsafeMutablePointer<CChar>? = nil
      if vips_image_get_as_string(pointer, name, &text) == 0, let text {
        fields[String(cString: name)] = String(cString: text)
        g_free(text)
      } else {
        _ = Vips.takeErrorMessage()
      }
      index += 1
    }
    return fields
  }
}

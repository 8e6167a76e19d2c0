import CVips
import CVipsShim

extension VipsImage {
  /// Saves to `path` with whichever saver of the running libvips its extension names
  /// (`.tif`, `.gif`, `.heic`, `.avif`, `.jpg`...), passing `options` to that saver in
  /// libvips's own syntax: `name=value` pairs, or bare names for booleans, comma-separated.
  ///
  /// <!-- snippet context: let photo = try VipsImage(file: "photo.png") -->
  /// ```swift
  /// try photo.save(to: "photo.jpg", options: "Q=90,interlace")  // a progressive JPEG
  /// try photo.save(to: "photo.tif", options: "compression=lzw")
  /// ```
  ///
  /// ``write(to:quality:)`` is the short form for the PNG, JPEG and WebP that
  /// ImageTool writes itself.
  public func save(to path: String, options: String = "") throws(VipsError) {
    guard !path.contains("["), !options.contains("]") else {
      throw .invalidArgument(
        operation: "save", message: "\(path): brackets belong to the saver options only")
    }
    let target = options.isEmpty ? path : "\(path)[\(options)]"
    if vips_foreign_find_save(path) == nil {
      _ = Vips.takeErrorMessage()
      _ = ModuleLoading.loadTrustedModules()  // HEIF, AVIF and JPEG XL savers
    }
    if cvips_image_write_to_file(pointer, target) != 0 {
      throw VipsError.operationFailed(
        operation: "save", source: path, message: Vips.takeErrorMessage())
    }
  }
}

import CVips
import CVipsShim
import Foundation

/// The file formats ImageTool writes for people to look at.
public enum EncodedFormat: String, Sendable, CaseIterable {
  case png, jpeg, webp

  /// The format a file name's extension asks for, if it is one of ours.
  public init?(path: String) {
    switch (path as NSString).pathExtension.lowercased() {
    case "png": self = .png
    case "jpg", "jpeg": self = .jpeg
    case "webp": self = .webp
    default: return nil
    }
  }
}

extension VipsImage {
  /// PNG bytes; `compression` 0 (fastest) to 9 (smallest).
  public func pngData(compression: Int = 6) throws(VipsError) -> [UInt8] {
    try encode("pngsave") { input, data, length in
      cvips_pngsave_buffer(input, data, length, Int32(compression))
    }
  }

  /// JPEG bytes at `quality` 1 to 100; alpha must be flattened first.
  public func jpegData(quality: Int = 85) throws(VipsError) -> [UInt8] {
    try encode("jpegsave") { input, data, length in
      cvips_jpegsave_buffer(input, data, length, Int32(quality))
    }
  }

  /// WebP bytes at `quality` 1 to 100, or lossless.
  public func webpData(quality: Int = 80, lossless: Bool = false) throws(VipsError) -> [UInt8] {
    try encode("webpsave") { input, data, length in
      cvips_webpsave_buffer(input, data, length, Int32(quality), lossless ? 1 : 0)
    }
  }

  /// Encodes to `path` in the format its extension names (`.png`, `.jpg`, `.webp`).
  public func write(to path: String, quality: Int? = nil) throws(VipsError) {
    guard let format = EncodedFormat(path: path) else {
      throw .invalidArgument(
        operation: "save", message: "\(path): the extension must be .png, .jpg, .jpeg or .webp")
    }
    let status =
      switch format {
      case .png: cvips_pngsave(pointer, path, 6)
      case .jpeg: cvips_jpegsave(pointer, path, Int32(quality ?? 85))
      case .webp: cvips_webpsave(pointer, path, Int32(quality ?? 80), 0)
      }
    if status != 0 {
      throw VipsError.operationFailed(
        operation: "\(format.rawValue)save", source: path, message: Vips.takeErrorMessage())
    }
  }

  private func encode(
    _ operation: String,
    _ save: (
      UnsafeMutablePointer<CVips.VipsImage>, UnsafeMutablePointer<UnsafeMutableRawPointer?>,
      UnsafeMutablePointer<Int>
    ) -> Int32
  ) throws(VipsError) -> [UInt8] {
    var data: UnsafeMutableRawPointer? = nil
    var length = 0
    try check(operation, save(pointer, &data, &length))
    guard let data else { return [] }
    defer { g_free(data) }
    return [UInt8](UnsafeRawBufferPointer(start: data, count: length))
  }
}

import CVipsShim

/// `cvips_png_rows_decode` called from Swift, apart from `PNGRowsTests` (which names the
/// Vips module's `VipsImage`, a name CVipsShim's libvips headers also have).
enum PNGRowsCall {
  static let done = Int32(CVIPS_PNG_ROWS_DONE)
  static let notTaken = Int32(CVIPS_PNG_ROWS_NOT_TAKEN)
  static let littleEndian = 1.littleEndian == 1

  /// Runs `body` with this thread's unfilters taking the scalar filters (those of a
  /// machine without SSE2).
  static func scalar<T>(_ body: () throws -> T) rethrows -> T {
    let before = cvips_png_rows_set_scalar(1)
    defer { _ = cvips_png_rows_set_scalar(before) }
    return try body()
  }

  /// The status of the decode of `bytes`, whose first IDAT chunk's data starts at
  /// `imageData`, and the `height` rows of `stride` bytes it made (16-bit samples in
  /// this machine's order).
  static func decode(
    _ bytes: [UInt8], imageData: Int, stride: Int, height: Int, bytesPerPixel: Int,
    sixteen: Bool
  ) -> (status: Int32, rows: [UInt8]) {
    let size = stride * height
    // The rows and the slack the decode needs (CVIPS_PNG_ROWS_SLACK).
    var out = [UInt8](repeating: 0, count: size + height + 16)
    let status = out.withUnsafeMutableBufferPointer { out in
      bytes.withUnsafeBufferPointer { data in
        cvips_png_rows_decode(
          data.baseAddress, data.count, imageData, out.baseAddress, stride, UInt32(height),
          Int32(bytesPerPixel), sixteen && littleEndian ? 1 : 0, 0)
      }
    }
    return (status, Array(out.prefix(size)))
  }
}

import CVips
import CVipsShim

extension VipsImage {
  /// Makes an image from packed samples, row after row, band after band.
  ///
  /// ```swift
  /// let red = try VipsImage(pixels: [255, 0, 0], width: 1, height: 1, bands: 3)
  /// ```
  public convenience init(
    pixels: [UInt8], width: Int, height: Int, bands: Int, interpretation: Interpretation? = nil
  ) throws(VipsError) {
    guard width > 0, height > 0, bands > 0, pixels.count == width * height * bands else {
      throw .invalidArgument(
        operation: "new_from_memory",
        message: "\(pixels.count) bytes do not make a \(width)x\(height) image of \(bands) bands")
    }
    try Vips.start()
    guard
      let image = pixels.withUnsafeBytes({ bytes in
        vips_image_new_from_memory_copy(
          bytes.baseAddress, bytes.count, Int32(width), Int32(height), Int32(bands),
          VIPS_FORMAT_UCHAR)
      })
    else {
      throw VipsError.fromLibvips(operation: "new_from_memory", source: nil)
    }
    self.init(taking: image, source: nil, anchors: [])
    // Set on the new image before anyone else can see it.
    image.pointee.Type = (interpretation ?? (bands < 3 ? .bw : .srgb)).vips
  }

  /// Computes the pixels once into memory, so that the result can be read any number
  /// of times and in any order (a file opened for one sequential pass cannot).
  public func materialized() throws(VipsError) -> VipsImage {
    try derive("copy_memory") { input, out in
      out.pointee = cvips_copy_memory_watched(input)
      return out.pointee == nil ? -1 : 0
    }
  }

  /// This image with its pixels in memory: itself when they are already, else computed
  /// once, whole, on the calling thread. For a step that reads every pixel of a pipeline
  /// computed on demand (a blur before a resample): read region by region instead, each
  /// region computes again the rows around it that the pipeline needs (a blur of sigma 20
  /// before a 1/8 resize: seconds, against milliseconds computed once).
  public func inMemoryOnThisThread() throws(VipsError) -> VipsImage {
    isInMemory ? self : try materializedOnThisThread()
  }

  /// ``materialized()`` computed on the calling thread, a strip at a time, with no
  /// threadpool: for a decode, whose loader reads sequentially anyway, while other
  /// photos keep the other cores busy.
  func materializedOnThisThread() throws(VipsError) -> VipsImage {
    try derive("copy_memory") { input, out in cvips_copy_memory_on_this_thread(input, out) }
  }

  /// Bytes in one row of packed pixels.
  public var packedBytesPerRow: Int {
    width * bands * Int(vips_format_sizeof(vips_image_get_format(pointer)))
  }

  /// Computes the pixels and returns them packed, row after row, band after band.
  public func writePixels() throws(VipsError) -> [UInt8] {
    var size = 0
    guard let memory = cvips_write_to_memory_watched(pointer, &size) else {
      throw VipsError.fromLibvips(operation: "write_to_memory", source: source)
    }
    defer { g_free(memory) }
    return [UInt8](UnsafeRawBufferPointer(start: memory, count: size))
  }

  /// Computes the pixels into `destination`, one row every `bytesPerRow` bytes, which
  /// must be at least ``packedBytesPerRow``; the bytes between rows are left alone.
  public func writePixels(into destination: UnsafeMutableRawBufferPointer, bytesPerRow: Int)
    throws(VipsError)
  {
    let rowBytes = packedBytesPerRow
    guard bytesPerRow >= rowBytes, destination.count >= bytesPerRow * (height - 1) + rowBytes,
      let base = destination.baseAddress
    else {
      throw .invalidArgument(
        operation: "write_to_memory",
        message: "\(destination.count) bytes with rows of \(bytesPerRow) cannot hold "
          + "\(height) rows of \(rowBytes) bytes")
    }
    var size = 0
    guard let memory = cvips_write_to_memory_watched(pointer, &size) else {
      throw VipsError.fromLibvips(operation: "write_to_memory", source: source)
    }
    defer { g_free(memory) }
    for row in 0..<height {
      (base + row * bytesPerRow).copyMemory(from: memory + row * rowBytes, byteCount: rowBytes)
    }
  }

  /// The samples of the pixel at (`x`, `y`), one per band, in the image's own units.
  public func pixel(x: Int, y: Int) throws(VipsError) -> [Double] {
    let one = try cropped(left: x, top: y, width: 1, height: 1)
      .derive("cast") { input, out in cvips_cast(input, out, VIPS_FORMAT_DOUBLE, 0) }
    let bytes = try one.writePixels()
    return bytes.withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
  }
}

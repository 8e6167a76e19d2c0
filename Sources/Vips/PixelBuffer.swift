import CVips
import CVipsShim

/// Packed 8-bit samples that libvips computed, row after row, band after band, in the
/// memory libvips wrote them to: read them without another copy.
public final class PixelBuffer: @unchecked Sendable {
  // Safety of @unchecked Sendable: written once by libvips before init returns, then
  // only read; freed once, in deinit.
  public let width: Int
  public let height: Int
  public let bands: Int
  /// `width * height * bands` bytes.
  public let bytes: UnsafeRawBufferPointer

  init(width: Int, height: Int, bands: Int, memory: UnsafeMutableRawPointer, count: Int) {
    self.width = width
    self.height = height
    self.bands = bands
    bytes = UnsafeRawBufferPointer(start: memory, count: count)
  }

  deinit {
    g_free(UnsafeMutableRawPointer(mutating: bytes.baseAddress))
  }
}

extension VipsImage {
  /// Computes the pixels of an 8-bit image once and keeps them where libvips wrote them.
  ///
  /// `onThisThread` computes them on the calling thread, a strip at a time, instead of
  /// in libvips's threadpool: for a small image, or when other work already keeps the
  /// cores busy (a render's entries), where the pool's hand-offs cost more than they share.
  public func computePixels(onThisThread: Bool = false) throws(VipsError) -> PixelBuffer {
    guard format == .uchar else {
      throw .invalidArgument(operation: "write_to_memory", message: "the samples are not 8-bit")
    }
    var size = 0
    let written = withExtendedLifetime(self) {
      onThisThread
        ? cvips_write_to_memory_on_this_thread(pointer, &size)
        : vips_image_write_to_memory(pointer, &size)
    }
    guard let memory = written else {
      throw VipsError.fromLibvips(operation: "write_to_memory", source: source)
    }
    return PixelBuffer(width: width, height: height, bands: bands, memory: memory, count: size)
  }
}

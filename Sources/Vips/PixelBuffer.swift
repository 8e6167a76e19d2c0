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

  /// The memory image whose pixels `bytes` views, kept while they are read; nil when
  /// the bytes are this buffer's own.
  private let image: VipsImage?

  init(width: Int, height: Int, bands: Int, memory: UnsafeMutableRawPointer, count: Int) {
    self.width = width
    self.height = height
    self.bands = bands
    bytes = UnsafeRawBufferPointer(start: memory, count: count)
    image = nil
  }

  /// The pixels of `image`, which holds them in memory: viewed, not copied.
  init(viewing image: VipsImage) {
    width = image.width
    height = image.height
    bands = image.bands
    bytes = UnsafeRawBufferPointer(
      start: image.pointer.pointee.data, count: width * height * bands)
    self.image = image
  }

  deinit {
    if image == nil { g_free(UnsafeMutableRawPointer(mutating: bytes.baseAddress)) }
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
    // Already in memory (a resampled entry, a joined mask): the same bytes, not copied.
    if isInMemory, pointer.pointee.Coding == VIPS_CODING_NONE { return PixelBuffer(viewing: self) }
    var size = 0
    let written = withExtendedLifetime(self) {
      onThisThread
        ? cvips_write_to_memory_on_this_thread(pointer, &size)
        : cvips_write_to_memory_watched(pointer, &size)
    }
    guard let memory = written else {
      throw VipsError.fromLibvips(operation: "write_to_memory", source: source)
    }
    return PixelBuffer(width: width, height: height, bands: bands, memory: memory, count: size)
  }
}

import Foundation

/// How `imgtool` asks glibc's allocator to behave in a long batch: decoded photos are
/// large, short-lived buffers, and by default glibc raises its mmap threshold after
/// freeing one, so later ones come from the heap and stay there; memory then grows
/// with the number of photos. Fixed thresholds give such buffers back at once.
public enum MemoryPolicy {
  private typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
  private static let trimThreshold: Int32 = -1  // M_TRIM_THRESHOLD
  private static let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD

  /// Buffers of 256 KiB and more are mapped and unmapped on their own; the heap's top
  /// is returned above 1 MiB free. Does nothing where glibc's `mallopt` is not there.
  public static func applyForBatchWork() {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "mallopt") else { return }
    let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
    _ = mallopt(mmapThreshold, 256 * 1024)
    _ = mallopt(trimThreshold, 1024 * 1024)
  }
}

import Foundation

/// How `imgtool` asks glibc's allocator to behave in a long batch.
///
/// A render allocates and frees the same large buffers photo after photo (the file's
/// bytes, the decode, the resample's rows). Mapped and unmapped on their own, each one
/// is paid again in page faults (half of a render's faults and a tenth of its CPU,
/// measured with `perf stat -e page-faults`). So buffers below 32 MiB come from the
/// heap, which keeps up to 128 MiB free at its top and grows 16 MiB at a time, and
/// there are at most two arenas: memory stays flat with the number of photos instead
/// of each thread's arena keeping its own high-water mark (peak RSS 121 MB for 200
/// inputs, 122 MB for 2,000, on 2 cores).
public enum MemoryPolicy {
  private typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
  private static let trimThreshold: Int32 = -1  // M_TRIM_THRESHOLD
  private static let topPad: Int32 = -2  // M_TOP_PAD
  private static let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
  private static let arenaMax: Int32 = -8  // M_ARENA_MAX

  /// Sets the thresholds above. Does nothing where glibc's `mallopt` is not there.
  public static func applyForBatchWork() {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "mallopt") else { return }
    let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
    _ = mallopt(mmapThreshold, 32 << 20)
    _ = mallopt(trimThreshold, 128 << 20)
    _ = mallopt(topPad, 16 << 20)
    _ = mallopt(arenaMax, 2)
  }
}

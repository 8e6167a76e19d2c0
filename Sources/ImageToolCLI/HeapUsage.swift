import Foundation

/// Bytes the C heap (glibc malloc, which Swift allocates through) has handed out and
/// not taken back, read from `malloc_info`. For benchmarks that show a path does not
/// allocate; nil where glibc's `malloc_info` is not there.
enum HeapUsage {
  private typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32

  private static let mallocInfo: MallocInfo? = {
    // The process's own symbols, glibc's among them (RTLD_DEFAULT is a null handle).
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_info") else { return nil }
    return unsafeBitCast(symbol, to: MallocInfo.self)
  }()

  static func bytesInUse() -> Int? {
    guard let mallocInfo else { return nil }
    var buffer: UnsafeMutablePointer<CChar>? = nil
    var length = 0
    guard let stream = open_memstream(&buffer, &length) else { return nil }
    _ = mallocInfo(0, stream)
    fclose(stream)
    guard let buffer else { return nil }
    defer { free(buffer) }
    let xml = String(cString: buffer)
    // The totals after the per-arena sections: what arenas hold from the system,
    // minus what is free in them, plus what was mmap'd directly.
    func total(_ pattern: String) -> Int {
      guard let range = xml.range(of: pattern, options: .backwards) else { return 0 }
      let rest = xml[range.upperBound...]
      guard let sizeStart = rest.range(of: "size=\"") else { return 0 }
      return Int(rest[sizeStart.upperBound...].prefix { $0.isNumber }) ?? 0
    }
    let system = total("<system type=\"current\"")
    let free = total("<total type=\"fast\"") + total("<total type=\"rest\"")
    return system - free + total("<total type=\"mmap\"")
  }
}

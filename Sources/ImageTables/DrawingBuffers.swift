import Foundation

/// Buffers an entry is drawn into before one `pwrite` puts it into its slot, kept for
/// reuse across writes and tables (one per write under way at a time).
///
/// Drawing straight into the mapped slot cost a page fault per 4 KiB of the entry
/// (a shared write fault on the file: the page found or made in the page cache, zeroed,
/// then `ext4_page_mkwrite`), about 3.5 µs each; a `pwrite` of the same bytes from a
/// buffer already in this process's memory fills the page cache with no fault and no
/// zeroing of pages it writes whole, about a third of the kernel time
/// (`Benchmarks/slot-writes.c`).
enum DrawingBuffers {
  /// A buffer of at least `count` bytes, 64-byte aligned, not zeroed.
  static func take(count: Int) -> UnsafeMutableRawBufferPointer {
    let reused = free.withLock { buffers -> UnsafeMutableRawBufferPointer? in
      guard let index = buffers.firstIndex(where: { $0.count >= count }) else { return nil }
      return buffers.remove(at: index)
    }
    return reused ?? UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, count), alignment: 64)
  }

  /// Gives `buffer` back for the next write. At most ``keptBuffers`` are kept, the
  /// largest; a smaller one is let go.
  static func give(_ buffer: UnsafeMutableRawBufferPointer) {
    let dropped = free.withLock { buffers -> UnsafeMutableRawBufferPointer? in
      buffers.append(buffer)
      buffers.sort { $0.count < $1.count }
      return buffers.count > keptBuffers ? buffers.removeFirst() : nil
    }
    dropped?.deallocate()
  }

  /// As many buffers as writes usually run at once (a render's workers, one per core).
  static let keptBuffers = max(2, ProcessInfo.processInfo.activeProcessorCount)

  private static let free = TableLock<[UnsafeMutableRawBufferPointer]>([])
}

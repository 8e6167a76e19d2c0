/// A copy of input bytes at a fixed address, which libvips may read for as long as
/// an image made from them lives.
final class ByteBuffer: @unchecked Sendable {
  // Safety of @unchecked Sendable: written once in init, only read afterwards.
  let start: UnsafeMutableRawPointer
  let count: Int

  init(copying bytes: [UInt8]) {
    count = bytes.count
    start = UnsafeMutableRawPointer.allocate(byteCount: max(1, count), alignment: 16)
    bytes.withUnsafeBytes { source in
      if let base = source.baseAddress { start.copyMemory(from: base, byteCount: count) }
    }
  }

  deinit {
    start.deallocate()
  }
}

/// Zeroed memory, 64-byte aligned, freed with its last reference: the bytes of a
/// ``Bitmap`` that lives outside any table.
final class OwnedBytes: @unchecked Sendable {
  // Safety of @unchecked Sendable: written only while its Bitmap is drawn, before any
  // reader can have it.
  let bytes: UnsafeMutableRawBufferPointer

  init(count: Int) {
    bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, count), alignment: 64)
    bytes.initializeMemory(as: UInt8.self, repeating: 0)
  }

  deinit { bytes.deallocate() }
}

import Foundation
import ImageTables

/// The floor a table hit is compared with in `imgtool bench tables`: a bare lookup in
/// memory-mapped files, as a C program would do it, with none of a table's guarantees
/// (no pins, no sequence checks, no verification, no use stamps, no Bitmap object).
///
/// An open-addressing array of (id hash, entry number) and 64-byte key records in one
/// mapped file; a hit hashes the id, probes, compares the key bytes and returns a
/// pointer into the table file, mapped again read-only.
final class BareMmapLookup: @unchecked Sendable {
  // Safety of @unchecked Sendable: the mappings are written only in init; lookups read.
  private let descriptor: Int32
  private let base: UnsafeMutableRawPointer
  private let length: Int
  private let mask: Int
  private let keysOffset: Int
  private let pixels: UnsafeMutableRawPointer
  private let pixelsLength: Int
  private let pixelDescriptor: Int32
  private let firstEntry: Int
  private let stride: Int

  /// Builds the lookup file at `path` for `ids`, whose pixels are entries `slots[i]`
  /// of the table file at `tablePath` (header `headerSize`, entries `stride` apart).
  init(path: String, ids: [String], slots: [Int], tablePath: String, headerSize: Int, stride: Int)
    throws
  {
    var buckets = 8
    while buckets < ids.count * 2 { buckets *= 2 }
    mask = buckets - 1
    keysOffset = buckets * 16
    length = keysOffset + ids.count * 64
    descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0, ftruncate(descriptor, off_t(length)) == 0,
      let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0),
      mapped != MAP_FAILED
    else { throw BenchmarkError.shortRead(path: path) }
    base = mapped
    for (number, id) in ids.enumerated() {
      let hash = Checksum.hash(id)
      var bucket = Int(truncatingIfNeeded: hash) & mask
      while base.load(fromByteOffset: bucket * 16 + 8, as: UInt64.self) != 0 {
        bucket = (bucket + 1) & mask
      }
      base.storeBytes(of: hash, toByteOffset: bucket * 16, as: UInt64.self)
      base.storeBytes(of: UInt64(number + 1), toByteOffset: bucket * 16 + 8, as: UInt64.self)
      let key = base + keysOffset + number * 64
      let bytes = Array(id.utf8.prefix(56))
      key.storeBytes(of: UInt64(bytes.count), as: UInt64.self)
      bytes.withUnsafeBytes { (key + 8).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
      key.storeBytes(of: UInt64(slots[number]), toByteOffset: 56, as: UInt64.self)
    }
    pixelDescriptor = open(tablePath, O_RDONLY | O_CLOEXEC)
    var status = stat()
    fstat(pixelDescriptor, &status)
    pixelsLength = Int(status.st_size)
    guard let pixelMapping = mmap(nil, pixelsLength, PROT_READ, MAP_SHARED, pixelDescriptor, 0),
      pixelMapping != MAP_FAILED
    else { throw BenchmarkError.shortRead(path: tablePath) }
    pixels = pixelMapping
    firstEntry = headerSize
    self.stride = stride
  }

  deinit {
    munmap(base, length)
    munmap(pixels, pixelsLength)
    close(descriptor)
    close(pixelDescriptor)
  }

  /// The entry's first pixel byte address, or nil.
  @inline(__always)
  func lookup(_ id: String) -> UnsafeRawPointer? {
    let hash = Checksum.hash(id)
    var bucket = Int(truncatingIfNeeded: hash) & mask
    var id = id
    while true {
      let number = base.load(fromByteOffset: bucket * 16 + 8, as: UInt64.self)
      if number == 0 { return nil }
      if base.load(fromByteOffset: bucket * 16, as: UInt64.self) == hash {
        let key = base + keysOffset + (Int(number) - 1) * 64
        let count = Int(key.load(as: UInt64.self))
        let same = id.withUTF8 { $0.count == count && memcmp($0.baseAddress!, key + 8, count) == 0 }
        if same {
          let slot = Int(key.load(fromByteOffset: 56, as: UInt64.self))
          return UnsafeRawPointer(pixels + firstEntry + slot * stride)
        }
      }
      bucket = (bucket + 1) & mask
    }
  }
}

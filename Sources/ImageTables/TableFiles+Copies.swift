import Foundation
import Synchronization

extension TableFiles {
  /// A hit for an instance without a reader record (a writer that found every record
  /// held): the entry's bytes copied into memory of the Bitmap's own, between two loads
  /// of the record's sequence (a seqlock read), so no pin is needed and no eviction can
  /// change them. The copy's checksum is the one checked on the entry's first serve.
  func copy(
    slot: Int, sequence before: UInt64, width: Int, height: Int, checksum: UInt64,
    entityID: String, sourceVersion: String
  ) -> Lookup {
    let count = layout.bytesPerRow * height
    let memory = OwnedBytes(count: count)
    memcpy(memory.bytes.baseAddress!, pixels(slot), count)
    // The copy's reads come before the second load of the sequence.
    atomicMemoryFence(ordering: .acquiring)
    guard sequence(slot).pointee.load(ordering: .relaxed) == before else { return .other }
    let checked = verified[slot].load(ordering: .relaxed)
    if checked != before {
      guard checked != before | Self.failedMark else { return .miss }
      let actual = Checksum.hash(
        UnsafeRawBufferPointer(start: memory.bytes.baseAddress!, count: count))
      guard actual == checksum else {
        verified[slot].store(before | Self.failedMark, ordering: .relaxed)
        return .corrupt(slot: slot, sequence: before, reason: "its pixels fail their checksum")
      }
      verified[slot].store(before, ordering: .relaxed)
    }
    markUsed(slot)
    return .hit(
      Bitmap(
        base: UnsafeRawPointer(memory.bytes.baseAddress!), mapping: memory, width: width,
        height: height, bytesPerRow: layout.bytesPerRow, style: layout.style, entityID: entityID,
        sourceVersion: sourceVersion))
  }
}

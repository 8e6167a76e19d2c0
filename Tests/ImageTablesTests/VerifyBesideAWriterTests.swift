import Foundation
import Testing

@testable import ImageTables

/// `verify` from a reader (read-only, as `imgtool verify` beside a render): a slot whose
/// write is under way in the writer is not damage; one a stopped writer left mid-write is.
@Suite("Verify beside a writer")
struct VerifyBesideAWriterTests {
  let format = makeFormat(width: 16, height: 16, maximumCount: 10)

  /// Writes `sequence` into slot `slot`'s record of the index file, as a writer in another
  /// process would through its mapping.
  private func setSequence(_ sequence: UInt64, slot: Int, index: String) throws {
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: index))
    try handle.seek(toOffset: UInt64(4096 + slot * 512))
    try handle.write(contentsOf: withUnsafeBytes(of: sequence.littleEndian) { Data($0) })
    try handle.close()
  }

  private func sequence(slot: Int, index: String) throws -> UInt64 {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: index))
    return bytes[(4096 + slot * 512)..<(4096 + slot * 512 + 8)].withUnsafeBytes {
      UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self))
    }
  }

  @Test func aSlotMidWriteIsSkippedAndOneLeftMidWriteIsReported() throws {
    let folder = try Folder.make()
    let writer = try ImageTable(format: format, directory: folder)
    for id in ["a", "b", "c", "d", "e"] { try writeEntry(writer, id) }
    let reader = try ImageTable(format: format, directory: folder, options: .init(readOnly: true))
    let slot = try #require(writer.entries().first { $0.entityID == "c" }?.slot)
    let committed = try sequence(slot: slot, index: writer.indexPath)
    #expect(committed != 0 && committed & 3 == 0)

    // A write under way that finishes 0.4 s later: not damage, and not counted.
    try setSequence(committed | 1, slot: slot, index: writer.indexPath)
    let finisher = Thread { [indexPath = writer.indexPath] in
      Thread.sleep(forTimeInterval: 0.4)
      try? setSequence(committed, slot: slot, index: indexPath)
    }
    finisher.start()
    let during = reader.verify()
    #expect(during.corrupt.isEmpty, "\(during.corrupt)")
    #expect(during.checked == 4)
    while try sequence(slot: slot, index: writer.indexPath) != committed { usleep(1000) }
    #expect(reader.verify() == VerificationReport(checked: 5, corrupt: []))

    // Mid-write for longer than the reader waits (a second), its writer still running
    // (kept off the cores, as on a crowded machine): still a write under way.
    try setSequence(committed | 1, slot: slot, index: writer.indexPath)
    let slow = reader.verify()
    #expect(slow.corrupt.isEmpty, "\(slow.corrupt)")
    #expect(slow.checked == 4)

    // A write left mid-way by a writer that stopped (its lock let go): damage, named.
    // Beside it, another slot's write that finishes 0.5 s into the verify, with no
    // writer lock held: the change alone tells it is under way (the verify waits a
    // second for one).
    writer.close()
    // (a slot verify reaches before the one left, or its second's wait would outlast
    // the other write)
    let other = try #require(reader.entries().map(\.slot).filter { $0 != slot }.min())
    try #require(other < slot)
    let otherCommitted = try sequence(slot: other, index: reader.indexPath)
    try setSequence(otherCommitted | 1, slot: other, index: reader.indexPath)
    let otherFinisher = Thread { [indexPath = reader.indexPath] in
      Thread.sleep(forTimeInterval: 0.5)
      try? setSequence(otherCommitted, slot: other, index: indexPath)
    }
    otherFinisher.start()
    let left = reader.verify()
    #expect(left.corrupt == [.init(slot: slot, entityID: nil, reason: "its write never finished")])
    #expect(left.checked == 4)
  }
}

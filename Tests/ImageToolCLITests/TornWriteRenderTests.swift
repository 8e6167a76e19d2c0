import Foundation
import Testing

/// A write torn by `kill -9` during a render (its record left mid-write): `verify`
/// names it, and the next render, up to date otherwise, takes the writer's lock and
/// clears it, so that `verify` passes again.
@Suite("A torn write cleared by the next render")
struct TornWriteRenderTests {
  @Test func anUpToDateRenderClearsATornWrite() throws {
    let (photos, cache) = try copiedPhotos(["rocket.jpg", "hubble.jpg", "chelsea.png"])
    let render = ["render", "--family", "avatar", "--cache", cache, photos.path]
    let first = try runExecutable(render)
    try #require(first.status == 0, "\(first.err)")
    // What `kill -9` leaves in a slot a write had reserved (sequence 0 -> 1) and not
    // finished: slot 3 of avatar.medium (three photos fill slots 0-2 of 16).
    let index = cache + "/avatar.medium.index"
    var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: index)))
    try #require(bytes.count == 4096 + 16 * 512)
    let record = 4096 + 3 * 512
    try #require(bytes[record..<(record + 8)].allSatisfy { $0 == 0 }, "slot 3 is vacant")
    bytes[record] = 1
    try Data(bytes).write(to: URL(fileURLWithPath: index))
    let damaged = try runExecutable(["verify", "--cache", cache])
    #expect(damaged.status == 1)
    #expect(
      damaged.err.contains("avatar.medium slot 3: its write never finished"), "\(damaged.err)")
    let clearing = try runExecutable(render)
    #expect(clearing.status == 0, "\(clearing.err)")
    #expect(
      clearing.err.contains(
        "table 'avatar.medium': entry 3 is corrupt (its write never finished); served as a miss"),
      "\(clearing.err)")
    #expect(clearing.out.contains("0 rendered, 3 up to date"), "\(clearing.out)")
    let clean = try runExecutable(["verify", "--cache", cache])
    #expect(clean.status == 0, "\(clean.err)")
    // Nothing left to clear: the next render only reads.
    let again = try runExecutable(render)
    #expect(again.status == 0)
    #expect(again.err.isEmpty, "\(again.err)")
  }
}

import Foundation
import Testing

@testable import ImageTables

/// A damaged lookup bucket from the command line, as a user meets it (found by a
/// reviewer trying the commands): every command names it, says the fix (a plain render,
/// no --force), and the render makes the buckets again and says so.
@Suite("Damaged lookup buckets, from the command line")
struct BucketDamageCommandTests {
  @Test func everyCommandNamesABucketThatHidesAnEntryAndARenderHealsIt() throws {
    let (photos, cache) = try copiedPhotos(["rocket.jpg", "hubble.jpg", "chelsea.png"])
    let render = ["render", "--family", "avatar", "--cache", cache, photos.path]
    try #require(try runExecutable(render).status == 0)
    // Empty the first bucket in use of avatar.small's shared file.
    let shared = cache + "/avatar.small.shared"
    var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: shared)))
    let geometry = SharedFile.Geometry(capacity: 1000, readerCount: SharedFile.defaultReaderCount)
    let offset = try #require(
      (0..<geometry.bucketCount).map { geometry.bucketsOffset + $0 * 8 }.first { offset in
        bytes[offset..<(offset + 8)].contains { $0 != 0 }
      })
    bytes.replaceSubrange(offset..<(offset + 8), with: [UInt8](repeating: 0, count: 8))
    try Data(bytes).write(to: URL(fileURLWithPath: shared))

    let verify = try runExecutable(["verify", "--cache", cache])
    #expect(verify.status == 1)
    // The entity hidden, read from what verify names.
    let line = try #require(
      verify.err.split(separator: "\n").first { $0.contains("no lookup bucket leads to it") })
    let entity = try #require(line.split(separator: "'").dropFirst().first.map(String.init))
    #expect(line.hasPrefix("imgtool: corrupt: avatar.small slot "))
    #expect(
      line.hasSuffix(
        " ('\(entity)'): no lookup bucket leads to it, so a hit cannot find it; the next "
          + "render makes the lookup buckets again"), "\(line)")
    #expect(
      verify.err.hasSuffix(
        "imgtool: verify: the next `imgtool render` into this cache clears what is damaged\n"))

    let export = try runExecutable([
      "export", "--format", "avatar.small", "--entity", entity, "--cache", cache,
      photos.deletingLastPathComponent().appendingPathComponent("out.png").path,
    ])
    #expect(export.status == 1)
    #expect(
      export.err.contains(
        "imgtool: format 'avatar.small' holds an entry for '\(entity)' that its damaged lookup "
          + "buckets hide (named above); one `imgtool render` into this cache makes them again "
          + "(no --force needed)"), "\(export.err)")

    let merged = photos.deletingLastPathComponent().appendingPathComponent("merged").path
    let merge = try runExecutable(["merge", "--cache", merged, cache])
    #expect(merge.status == 1)
    #expect(merge.err.contains("format 'avatar.small': its lookup buckets do not match its index"))
    #expect(
      merge.err.contains(
        "one `imgtool render` into that cache (no --force needed) makes them again"),
      "\(merge.err)")

    let healing = try runExecutable(render)
    #expect(healing.status == 0)
    #expect(
      healing.err.contains(
        "warning: table 'avatar.small': its lookup buckets did not match its index (slot "),
      "\(healing.err)")
    #expect(healing.err.contains("made again from the index, no entry lost"))
    #expect(healing.out.contains("0 rendered, 3 up to date"), "\(healing.out)")
    #expect(try runExecutable(["verify", "--cache", cache]).status == 0)
  }
}

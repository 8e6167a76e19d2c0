import Foundation
import TestFixtures
import Testing
import Vips

@Suite("FileBytes: a file read in one pass")
struct FileBytesTests {
  @Test("each kept photo reads as the same bytes Foundation reads")
  func photos() throws {
    for name in Fixtures.keptPhotoNames {
      let path = Fixtures.photo(name)
      let expected = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
      #expect(try FileBytes.read(path) == expected, "\(name)")
    }
  }

  @Test("an empty file is no bytes")
  func empty() throws {
    let path = try Fixtures.temporaryFolder().appendingPathComponent("empty").path
    #expect(FileManager.default.createFile(atPath: path, contents: Data()))
    #expect(try FileBytes.read(path) == [])
  }

  @Test("a large file reads whole, byte for byte, and the limit is exact")
  func large() throws {
    let path = try Fixtures.temporaryFolder().appendingPathComponent("large").path
    // 16 MiB and a part page of a pattern no two neighbouring pages share.
    var generator = SplitMix(seed: 23)
    let expected = (0..<((16 << 20) + 12_345)).map { _ in
      UInt8(truncatingIfNeeded: generator.next())
    }
    try Data(expected).write(to: URL(fileURLWithPath: path))
    #expect(try FileBytes.read(path) == expected)
    #expect(try FileBytes.read(path, maximumBytes: expected.count).count == expected.count)
    #expect(
      throws: VipsError.unreadable(
        source: path, message: "larger than the limit of \(expected.count - 1) bytes")
    ) {
      try FileBytes.read(path, maximumBytes: expected.count - 1)
    }
  }

  @Test("a file whose size fstat does not know (it grows as it is read) reads to its end")
  func growing() throws {
    // /proc files are regular, fstat gives 0 bytes, and read gives their contents.
    let path = "/proc/self/cmdline"
    let expected = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(expected.count > 8)
    #expect(try FileBytes.read(path) == expected)
    #expect(throws: VipsError.unreadable(source: path, message: "larger than the limit of 8 bytes"))
    {
      try FileBytes.read(path, maximumBytes: 8)
    }
  }

  @Test("a missing file, a directory and a path through a file give libvips's words")
  func errors() throws {
    let folder = try Fixtures.temporaryFolder()
    let missing = folder.appendingPathComponent("missing.jpg").path
    #expect(throws: VipsError.unreadable(source: missing, message: "no such file")) {
      try FileBytes.read(missing)
    }
    #expect(throws: VipsError.unreadable(source: folder.path, message: "it is a directory")) {
      try FileBytes.read(folder.path)
    }
    let through = Fixtures.photo("astronaut.png") + "/inside"
    #expect(throws: VipsError.unreadable(source: through, message: "no such file")) {
      try FileBytes.read(through)
    }
    #expect(
      VipsError.unreadable(source: missing, message: "no such file").description
        == "\(missing): cannot read the file: no such file")
  }

  @Test("a FIFO with no writer and an endless device are refused at once, not read")
  func endless() throws {
    let fifo = try Fixtures.temporaryFolder().appendingPathComponent("fifo").path
    #expect(mkfifo(fifo, 0o600) == 0)
    #expect(throws: VipsError.unreadable(source: fifo, message: "not a regular file (a FIFO)")) {
      try FileBytes.read(fifo)
    }
    for device in ["/dev/zero", "/dev/urandom"] {
      #expect(
        throws: VipsError.unreadable(
          source: device, message: "not a regular file (a character device)")
      ) {
        try FileBytes.read(device)
      }
    }
  }
}

/// A small deterministic generator (SplitMix64) for test bytes.
private struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

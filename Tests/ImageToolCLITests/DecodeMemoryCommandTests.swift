import Foundation
import ImageTables
import TestFixtures
import Testing

/// `--max-decode-memory` and the decode memory estimate, from outside: the bomb fixture
/// (4 KB, a progressive 8000x8000 JPEG cut short) is refused before libjpeg takes its
/// coefficients, which the child's own peak memory (`wait4`'s `ru_maxrss`) shows, and
/// the photos beside it in a render go on.
@Suite("Decode memory, from the command line")
struct DecodeMemoryCommandTests {
  static let bomb = Fixtures.folder.appendingPathComponent("bad/progressive-8000x8000-cut.jpg")
    .path

  /// The bomb's refusal at the avatar family's and apply's 64x64 shrink-on-load (8): its
  /// coefficients, 8000x8000 x 3 components x 2 bytes, and a 1000x1000 RGB decode.
  static let bombReason =
    "decoding it would take about 369.1 MiB of memory (a progressive JPEG keeps every DCT "
    + "coefficient of its 8000x8000 pixels until its last scan), more than the 200.0 MiB "
    + "allowed for a file of 4.0 KiB; refused before decoding as a likely decompression bomb "
    + "(if it is a real photo, a limit of 370 MiB reads it: --max-decode-memory)"

  /// Runs the built `imgtool` with `arguments` and returns its exit status, standard
  /// error and peak resident memory in KiB, as `wait4` reports it for that one child.
  ///
  /// Measured from a small python3 process that starts it: a child started straight from
  /// this test process begins with this process's own peak (Linux keeps the larger of the
  /// two across posix_spawn's exec; a full test run here is hundreds of MB).
  func runMeasuringPeak(_ arguments: [String]) throws -> (status: Int32, err: String, peakKiB: Int)
  {
    let folder = try Paths.temporaryFolder()
    let errPath = folder.appendingPathComponent("err.txt").path
    let measure = """
      import os, subprocess, sys
      with open(sys.argv[1], "w") as err:
          child = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=err)
          _, status, usage = os.wait4(child.pid, 0)
      print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
      """
    let result = try runExecutable(
      ["-c", measure, errPath, Paths.executable.path] + arguments,
      program: URL(fileURLWithPath: "/usr/bin/python3"))
    let fields = result.out.split(separator: " ").compactMap {
      Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    try #require(result.status == 0 && fields.count == 2, "python3: \(result.err)")
    return (Int32(fields[0]), try String(contentsOfFile: errPath, encoding: .utf8), fields[1])
  }

  @Test("apply refuses the bomb before decoding it; a raised limit lets libjpeg take its 366 MiB")
  func applyRefusesTheBombBeforeDecoding() throws {
    let output = try Paths.temporaryFolder().appendingPathComponent("out.png").path
    let apply = ["apply", "--pipeline", "fit", "--size", "64x64"]
    let refused = try runMeasuringPeak(apply + [Self.bomb, output])
    #expect(refused.status == 1)
    #expect(refused.err == "imgtool: \(Self.bomb): \(Self.bombReason)\n")
    #expect(!FileManager.default.fileExists(atPath: output))

    // With the limit raised the decode goes ahead: libjpeg takes the memory the estimate
    // gave, then finds the data cut short.
    let decoded = try runMeasuringPeak(
      apply + ["--max-decode-memory", "1024", Self.bomb, output])
    #expect(decoded.status == 1)
    #expect(decoded.err.contains("\(Self.bomb): the image data ends early (truncated)"))
    // Its coefficients alone are 366 MiB, which the refusal never took (compared with the
    // decode rather than with a fixed figure: a ThreadSanitizer build's own memory is
    // larger; here about 48 MiB refused against 414 MiB decoded).
    #expect(
      decoded.peakKiB - refused.peakKiB > 300 * 1024,
      "peak \(refused.peakKiB) KiB refused, \(decoded.peakKiB) KiB decoded")
  }

  @Test("a render names the bomb and renders the photos beside it")
  func aRenderGoesOnBesideTheBomb() async throws {
    let folder = try Paths.temporaryFolder()
    let photos = folder.appendingPathComponent("photos")
    try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
    for path in [Self.bomb, Paths.bundled("chelsea.png"), Paths.bundled("rocket.jpg")] {
      try FileManager.default.copyItem(
        atPath: path,
        toPath: photos.appendingPathComponent((path as NSString).lastPathComponent).path)
    }
    let cache = folder.appendingPathComponent("cache")
    let result = await runTool([
      "render", "--family", "avatar", "--quiet", "--cache", cache.path, photos.path,
    ])
    #expect(result.status == 1)
    #expect(
      result.out.contains(
        "  failed: \(photos.path)/progressive-8000x8000-cut.jpg: \(Self.bombReason)"),
      "\(result.out)")
    let table = try ImageTable(
      existingTableAt: cache.appendingPathComponent("avatar.large.table").path)
    #expect(
      Set(table.entries().map(\.entityID)) == ["chelsea.png", "rocket.jpg"])
  }

  @Test("--max-decode-memory is a hard limit: info --check and render refuse above it")
  func theOptionIsAHardLimit() async throws {
    // hubble.jpg, 1000x872, decoded whole by info --check and at its own size by the
    // avatar family (a shrink under 4): 2.6 MB, where its 528 KB file may take 100 MB
    // by default.
    let hubble = Paths.bundled("hubble.jpg")
    let refusal =
      "decoding it would take about 2.5 MiB of memory, more than the 1.0 MiB allowed for a "
      + "file of 515.6 KiB; refused before decoding as a likely decompression bomb (if it "
      + "is a real photo, a limit of 3 MiB reads it: --max-decode-memory)"
    let checked = await runTool(["info", "--check", "--max-decode-memory", "1", hubble])
    #expect(checked.status == 1 && checked.err == ["imgtool: \(hubble): \(refusal)"])
    #expect(await runTool(["info", "--check", hubble]).status == 0)
    let cache = try Paths.temporaryFolder().appendingPathComponent("cache").path
    let render = await runTool([
      "render", "--family", "avatar", "--quiet", "--max-decode-memory", "1", "--cache", cache,
      hubble,
    ])
    #expect(render.status == 1)
    #expect(render.out.contains("  failed: \(hubble): \(refusal)"), "\(render.out)")
  }

  @Test("--max-decode-memory takes whole MiB from 1, and says so")
  func aBadLimitIsAUsageError() async {
    for value in ["0", "lots", "-5"] {
      let result = await runTool(["info", "--max-decode-memory", value, Self.bomb])
      #expect(result.status == 64)
      #expect(
        result.err.first
          == "imgtool: invalid value '\(value)' for '--max-decode-memory': expected a whole "
          + "number from 1 to 16777216", "\(result.err)")
    }
  }
}

import Foundation
import ImageProcessing
import ImageTables
import Locking
import Testing
import Vips

@testable import ImageCaching

/// What a processor works out about a photo once serves every format of its fill.
@Suite("The memo of a fill")
struct ProcessingMemoTests {
  /// Records, per memo, how often its value had to be made, and which formats asked.
  final class MemoProbe: ImageProcessor, Sendable {
    var identifier: String { "memoProbe@1" }
    // The memos themselves, kept alive so that no two are ever the same object.
    private let made = Lock<[(memo: ProcessingMemo, count: Int)]>([])
    private let asked = Lock<[String]>([])

    var makes: [Int] { made.withLock { $0.map(\.count) } }
    var formats: [String] { asked.withLock { $0.sorted() } }

    func process(_ image: VipsImage, context: ProcessingContext) throws -> VipsImage {
      asked.withLock { $0.append(context.formatName) }
      guard let memo = context.memo else { throw ProbeProblem() }
      _ = memo.value("probe") {
        made.withLock { made in
          if let index = made.firstIndex(where: { $0.memo === memo }) {
            made[index].count += 1
          } else {
            made.append((memo, 1))
          }
        }
        return [Double(image.width)]
      }
      return image
    }
  }

  struct ProbeProblem: Error {}

  @Test func everyFormatOfAFillSharesOneMemo() async throws {
    let probe = MemoProbe()
    let registry = ProcessorRegistry.withBuiltIns()
    try registry.register(
      ProcessorDefinition(name: "memoProbe", summary: "A test probe.") { _ in probe })
    let formats = try [16, 32, 64].map { size in
      try ImageFormat(
        name: "probe.\(size)", family: "probe", width: size, height: size, maximumCount: 10,
        pipeline: "memoProbe | fill")
    }
    let cache = try ImageCache(
      configuration: CacheConfiguration(
        directory: try Photos.temporaryFolder(), formats: formats, registry: registry))
    for name in ["rocket.jpg", "coffee.png"] {
      try await cache.fill(entity(name), family: "probe")
    }
    #expect(
      probe.formats == ["probe.16", "probe.16", "probe.32", "probe.32", "probe.64", "probe.64"])
    // Two fills, two memos, each value made once for its three formats.
    #expect(probe.makes == [1, 1])
  }
}

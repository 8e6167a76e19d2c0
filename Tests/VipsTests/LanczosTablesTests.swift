import TestFixtures
import Testing

@testable import Vips

/// The process-wide cache of lanczos3 weight tables (Resample.c) gives the very bytes
/// of tables computed afresh: for many (points, shrink), more than the cache holds (so
/// entries are replaced), from several threads at once.
@Suite("Lanczos weight tables")
struct LanczosTablesTests {
  /// (points, shrink) pairs as the resizes make them: points = 2 x ceil(3 x shrink) + 1
  /// for shrinks between 1 and 2 (after the box shrink), 40 of them.
  static let keys: [(points: Int, shrink: Double)] = (0..<40).map { step in
    let shrink = 1.0 + Double(step) / 40.0 + 0.001_953_125 * Double(step % 3)
    return (2 * Int((3 * shrink).rounded(.up)) + 1, shrink)
  }

  static func bits(_ weights: [Double]) -> [UInt64] { weights.map(\.bitPattern) }

  @Test("cached tables are the bytes of tables computed afresh, and sum to 1 per phase")
  func sameBytes() {
    for key in Self.keys {
      let fresh = LanczosTables.weights(points: key.points, shrink: key.shrink, cached: false)
      #expect(fresh.count == key.points * LanczosTables.phases)
      // First use fills the cache, the second reads it.
      for _ in 0..<2 {
        let cached = LanczosTables.weights(points: key.points, shrink: key.shrink, cached: true)
        #expect(Self.bits(cached) == Self.bits(fresh), "points \(key.points) shrink \(key.shrink)")
      }
      for phase in 0..<LanczosTables.phases {
        let sum = fresh[(phase * key.points)..<((phase + 1) * key.points)].reduce(0, +)
        #expect(abs(sum - 1) < 1e-12)
      }
    }
  }

  @Test("four threads reading and replacing entries at once get the same bytes")
  func threads() async throws {
    let expected = Self.keys.map {
      Self.bits(LanczosTables.weights(points: $0.points, shrink: $0.shrink, cached: false))
    }
    let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
      for thread in 0..<4 {
        group.addTask {
          try await onOwnThread {
            var wrong = 0
            for round in 0..<20 {
              for index in Self.keys.indices {
                let key = Self.keys[(index * 7 + thread + round) % Self.keys.count]
                let cached = LanczosTables.weights(
                  points: key.points, shrink: key.shrink, cached: true)
                if Self.bits(cached) != expected[(index * 7 + thread + round) % Self.keys.count] {
                  wrong += 1
                }
              }
            }
            return wrong
          }
        }
      }
      return try await group.reduce(0, +)
    }
    #expect(mismatches == 0)
  }
}

import Foundation

/// Nanosecond timings of single operations, summarised by percentiles.
struct LatencySamples {
  private(set) var nanos: [UInt64] = []

  init(capacity: Int) { nanos.reserveCapacity(capacity) }

  mutating func append(_ value: UInt64) { nanos.append(value) }

  /// The value below which `fraction` of the samples fall (nearest rank).
  func percentile(_ fraction: Double) -> Double {
    guard !nanos.isEmpty else { return .nan }
    let sorted = nanos.sorted()
    let rank = min(
      sorted.count - 1, max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))
    return Double(sorted[rank])
  }

  var median: Double { percentile(0.5) }

  /// The monotonic clock in nanoseconds (one vDSO call, no allocation).
  @inline(__always)
  static func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
  }
}

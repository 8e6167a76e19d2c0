import Locking

/// The masks made most recently, computed, by size and radius: every photo of a
/// format uses the same one.
final class MaskCache: Sendable {
  struct Key: Hashable {
    var width: Int
    var height: Int
    var radius: Double
  }

  /// Masks kept at most; the oldest go first.
  static let capacity = 32
  static let shared = MaskCache()
  private let masks = Lock<[(Key, VipsImage)]>([])

  func mask(for key: Key) -> VipsImage? {
    masks.withLock { masks in masks.first { $0.0 == key }?.1 }
  }

  func keep(_ mask: VipsImage, for key: Key) {
    masks.withLock { masks in
      guard !masks.contains(where: { $0.0 == key }) else { return }
      if masks.count == Self.capacity { masks.removeFirst() }
      masks.append((key, mask))
    }
  }
}

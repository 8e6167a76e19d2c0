import Locking

/// A scratchpad shared by the formats of one fill, which all start from the same
/// decoded image: a processor keeps what it learned about that image (where attention
/// centres a crop) so the next format need not work it out again.
///
/// Values must depend only on the source image and the key, never on the format.
public final class ProcessingMemo: Sendable {
  private let values = Lock<[String: [Double]]>([:])

  public init() {}

  /// The value for `key`, made by `make` the first time.
  public func value(_ key: String, make: () throws -> [Double]) rethrows -> [Double] {
    if let known = values.withLock({ $0[key] }) { return known }
    let made = try make()
    values.withLock { $0[key] = made }
    return made
  }

  /// The value stored under `key`, if any.
  public func stored(_ key: String) -> [Double]? { values.withLock { $0[key] } }

  /// Stores `value` under `key`, replacing what was there.
  public func store(_ key: String, _ value: [Double]) { values.withLock { $0[key] = value } }
}

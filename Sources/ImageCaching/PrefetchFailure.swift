/// One entity a ``ImageCache/prefetch(_:family:priority:onFailure:)`` could not fill, and why.
public struct PrefetchFailure: Sendable, Equatable, CustomStringConvertible {
  public var entity: Entity
  public var error: CacheError

  public init(entity: Entity, error: CacheError) {
    self.entity = entity
    self.error = error
  }

  public var description: String { "\(error)" }
}

/// Counts of what a cache did since it was made.
public struct CacheStatistics: Sendable, Equatable {
  /// Sources decoded: one per entity per family fill, however many formats it has.
  public var decodes = 0
  /// Fills that ran (merged requests count once).
  public var fills = 0
  /// Requests that joined a fill already running for the same entity and family.
  public var mergedRequests = 0
  /// Entries written to tables.
  public var entriesWritten = 0
  /// Fills that failed.
  public var failures = 0
}

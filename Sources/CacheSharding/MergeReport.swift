/// What a merge did.
public struct MergeReport: Sendable, Equatable {
  /// One format's merge.
  public struct Format: Sendable, Equatable {
    public var name: String
    /// Entries in the output's table now.
    public var entries: Int
    /// Entries copied from the inputs.
    public var fromInputs: Int
    /// Entries found in more than one input at the same version, taken once.
    public var duplicates: Int
    /// Entries the output had that no input replaced, kept.
    public var keptFromOutput: Int
  }

  public var formats: [Format]
  /// Bytes of entries copied (each entry's rows, as the table stores them).
  public var bytesCopied: Int
  /// Seconds from the first table opened to the output in place.
  public var seconds: Double
  /// Whether the output was moved in with one atomic exchange (false on file systems
  /// without `renameat2(RENAME_EXCHANGE)`, where each table is moved in on its own).
  public var atomic: Bool
  /// Whether the output folder was made by this merge.
  public var createdOutput: Bool

  /// Entries written in all, from the inputs and kept from the output.
  public var entriesWritten: Int { formats.reduce(0) { $0 + $1.fromInputs + $1.keptFromOutput } }
}

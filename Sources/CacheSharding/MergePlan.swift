import ImageTables

/// What one format's merged table will hold: each entity once, with where its entry
/// is copied from, in the order the entries are written (the output's kept entries
/// first, then each input's, each least recently used first).
struct MergePlan {
  struct Pick: Equatable {
    /// The table the entry is copied from: an input's index, or nil for the output.
    var input: Int?
    var entityID: String
    var sourceVersion: String
  }

  var picks: [Pick] = []
  var duplicates = 0
  var keptFromOutput = 0
  var fromInputs: Int { picks.count - keptFromOutput }

  /// `inputs[i]` lists input i's entries; `output` the output's, if it exists. The same
  /// entity at the same version in two inputs is taken once; at two versions it is an
  /// error. An input's entry replaces the output's entry of the same entity.
  init(
    format: String, inputs: [(path: String, entries: [TableEntry])],
    output: [TableEntry]
  ) throws(MergeError) {
    var seen: [String: (input: Int, version: String)] = [:]
    var fromInputs: [Pick] = []
    for (number, input) in inputs.enumerated() {
      for entry in input.entries {
        if let first = seen[entry.entityID] {
          guard first.version == entry.sourceVersion else {
            throw .versionConflict(
              entityID: entry.entityID, format: format,
              first: (inputs[first.input].path, first.version),
              second: (input.path, entry.sourceVersion))
          }
          duplicates += 1
          continue
        }
        seen[entry.entityID] = (number, entry.sourceVersion)
        fromInputs.append(
          Pick(input: number, entityID: entry.entityID, sourceVersion: entry.sourceVersion))
      }
    }
    for entry in output where seen[entry.entityID] == nil {
      picks.append(Pick(input: nil, entityID: entry.entityID, sourceVersion: entry.sourceVersion))
    }
    keptFromOutput = picks.count
    picks += fromInputs
  }
}

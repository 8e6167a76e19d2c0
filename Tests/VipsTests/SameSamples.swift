import Testing

/// Expects `ours` and `theirs` to hold the same samples, byte for byte; when they do not,
/// records how many differ and the first that does.
func expectSameSamples(
  _ ours: [UInt8], _ theirs: [UInt8], _ label: String,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  guard ours != theirs else { return }
  let differing = zip(ours, theirs).enumerated().filter { $0.element.0 != $0.element.1 }
  let first =
    differing.first.map { "sample \($0.offset): \($0.element.0) against \($0.element.1)" }
    ?? "none among the first \(min(ours.count, theirs.count))"
  Issue.record(
    "\(label): \(ours.count) and \(theirs.count) samples, \(differing.count) differ, first \(first)",
    sourceLocation: sourceLocation)
}

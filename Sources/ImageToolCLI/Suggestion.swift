/// "Did you mean": the closest known name to a mistyped one.
enum Suggestion {
  /// The candidate within a small edit distance of `word`, if any.
  static func closest(to word: String, among candidates: [String]) -> String? {
    let scored = candidates.map { ($0, distance(word.lowercased(), $0.lowercased())) }
    guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
    return best.1 <= max(2, word.count / 3) ? best.0 : nil
  }

  /// Levenshtein distance: insertions, deletions and substitutions.
  static func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    var previous = Array(0...b.count)
    for (i, characterA) in a.enumerated() {
      var current = [i + 1]
      for (j, characterB) in b.enumerated() {
        current.append(
          min(previous[j + 1] + 1, current[j] + 1, previous[j] + (characterA == characterB ? 0 : 1))
        )
      }
      previous = current
    }
    return previous[b.count]
  }
}

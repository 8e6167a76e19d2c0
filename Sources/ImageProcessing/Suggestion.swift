/// "Did you mean": the known names closest to a mistyped one.
public enum Suggestion {
  /// The candidate within a small edit distance of `word`, if any.
  public static func closest(to word: String, among candidates: [String]) -> String? {
    closest(to: word, among: candidates, limit: 1).first
  }

  /// Up to `limit` candidates within a small edit distance of `word`, closest first.
  public static func closest(to word: String, among candidates: [String], limit: Int) -> [String] {
    let allowed = max(2, word.count / 3)
    let lowered = word.lowercased()
    var scored: [(name: String, distance: Int)] = []
    for candidate in candidates {
      let score = distance(lowered, candidate.lowercased())
      if score <= allowed { scored.append((candidate, score)) }
    }
    scored.sort { left, right in
      left.distance != right.distance ? left.distance < right.distance : left.name < right.name
    }
    return scored.prefix(limit).map(\.name)
  }

  /// Levenshtein distance: insertions, deletions and substitutions.
  public static func distance(_ a: String, _ b: String) -> Int {
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

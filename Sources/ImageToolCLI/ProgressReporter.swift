import Foundation
import Locking

/// Progress of a long job: a bar with count, rate and time left on a terminal, one
/// plain line per item otherwise, nothing when quiet.
final class ProgressReporter: Sendable {
  enum Mode { case bar, lines, quiet }

  let total: Int
  let mode: Mode
  let console: Console
  private let start = ContinuousClock.now
  private let done = Lock(0)

  init(total: Int, console: Console, quiet: Bool) {
    self.total = total
    self.console = console
    mode = quiet ? .quiet : console.errIsTerminal ? .bar : .lines
  }

  /// One item finished; `note` says how ("written", "skipped", "failed: ...").
  func finished(_ item: String, _ note: String) {
    let count = done.withLock {
      $0 += 1
      return $0
    }
    switch mode {
    case .quiet: return
    case .lines: console.err("[\(count)/\(total)] \(item): \(note)")
    case .bar: console.status(bar(count))
    }
  }

  /// Clears the bar, so the summary starts on a clean line.
  func end() {
    if mode == .bar { console.status("") }
  }

  private func bar(_ count: Int) -> String {
    let width = 30
    let filled = total == 0 ? width : width * count / total
    let seconds = Self.seconds(ContinuousClock.now - start)
    let rate = seconds > 0 ? Double(count) / seconds : 0
    let left = rate > 0 ? Double(total - count) / rate : 0
    return "[" + String(repeating: "#", count: filled)
      + String(repeating: ".", count: width - filled)
      + "] \(count)/\(total)  " + String(format: "%.1f/s", rate) + "  "
      + String(format: "%d:%02d left", Int(left) / 60, Int(left) % 60)
  }

  static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }

  var elapsedSeconds: Double { Self.seconds(ContinuousClock.now - start) }
}

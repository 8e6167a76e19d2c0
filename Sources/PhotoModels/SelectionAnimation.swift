/// The scrubber's selection moving from where it stood to the photo just selected, as
/// Nimbus animates it: 0.2 s, UIKit's ease-out curve, beginning from the current state.
///
/// The model does not draw: drawing code samples the animation on each frame.
///
/// <!-- snippet context: let scrubber = PhotoScrubber() -->
/// <!-- snippet context: let now = PhotoScrubber.uptime() -->
/// <!-- snippet context: func draw(selectionAt frame: Rect) {} -->
/// ```swift
/// if let animation = scrubber.setSelectedPhotoIndex(12, animated: true) {
///   let elapsed = now - animation.startTime
///   draw(selectionAt: animation.frame(atElapsed: elapsed))  // until isFinished
/// }
/// ```
public struct SelectionAnimation: Sendable, Equatable {
  /// Nimbus's duration, in seconds.
  public static let standardDuration = 0.2

  /// Where the selection stood when the animation began (mid-way through the previous
  /// animation if one was running).
  public let from: Rect
  /// Where the selection stands when the animation ends.
  public let to: Rect
  /// In seconds.
  public let duration: Double
  /// When the animation began, in seconds on the scrubber's clock.
  public let startTime: Double

  public init(from: Rect, to: Rect, duration: Double = standardDuration, startTime: Double = 0) {
    self.from = from
    self.to = to
    self.duration = duration
    self.startTime = startTime
  }

  /// How far along the curve the selection is `seconds` after the start: 0 before, 1
  /// from `duration` on, and in between UIKit's ease-out timing (the cubic Bézier with
  /// control points (0, 0) and (0.58, 1)).
  public func progress(atElapsed seconds: Double) -> Double {
    guard duration > 0, seconds < duration else { return 1 }
    guard seconds > 0 else { return 0 }
    return EaseOutCurve.value(atTime: seconds / duration)
  }

  /// Where the selection is drawn `seconds` after the start.
  public func frame(atElapsed seconds: Double) -> Rect {
    from.interpolated(to: to, by: progress(atElapsed: seconds))
  }

  /// Whether the selection has arrived `seconds` after the start.
  public func isFinished(atElapsed seconds: Double) -> Bool { seconds >= duration }
}

/// UIKit's `UIViewAnimationCurveEaseOut` (Core Animation's `kCAMediaTimingFunctionEaseOut`):
/// the cubic Bézier from (0, 0) to (1, 1) with control points (0, 0) and (0.58, 1), read
/// as progress (y) over time (x).
enum EaseOutCurve {
  static let controlX1 = 0.0
  static let controlX2 = 0.58
  static let controlY1 = 0.0
  static let controlY2 = 1.0

  /// The curve's y where its x is `time` (0 to 1).
  static func value(atTime time: Double) -> Double {
    let t = min(max(time, 0), 1)
    // x(s) rises monotonically from 0 to 1: bisect for the parameter s with x(s) = t.
    var low = 0.0
    var high = 1.0
    for _ in 0..<60 {
      let middle = (low + high) / 2
      if coordinate(middle, controlX1, controlX2) < t { low = middle } else { high = middle }
    }
    return coordinate((low + high) / 2, controlY1, controlY2)
  }

  /// One coordinate of the Bézier at parameter `s`, with end points 0 and 1.
  private static func coordinate(_ s: Double, _ first: Double, _ second: Double) -> Double {
    let rest = 1 - s
    return 3 * rest * rest * s * first + 3 * rest * s * s * second + s * s * s
  }
}

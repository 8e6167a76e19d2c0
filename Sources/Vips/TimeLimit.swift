import CVips
import CVipsShim
import Foundation

extension Vips {
  /// Runs `body`, the decode and processing of one image, on this thread with a time
  /// limit: past `limit`, libvips's kill switch (`vips_image_set_kill`) stops the pixel
  /// work, and what `body` throws then is replaced by `timedOut` of
  /// ``VipsError/timedOut(source:seconds:)``.
  ///
  /// Two ways enforce the limit:
  /// - pixel work (a loader's rows, a pipeline, rasterising) is killed by a watchdog
  ///   thread at the deadline: every image made on this thread meanwhile, and every image
  ///   upstream of it, has its kill flag set, so libvips stops at the next region any of
  ///   its threads prepares, even inside one long request (a blur of a whole photo for
  ///   the first strip of a small entry);
  /// - the steps before an image exists (which loader reads the bytes, its header),
  ///   where libvips cannot be asked to stop, run on a worker thread that is abandoned
  ///   when the limit passes (``VipsImage/decode(bytes:name:limits:failOn:keepingICCProfile:shrink:)``
  ///   and ``VipsImage/init(file:limits:)`` do this when this thread has a limit).
  ///
  /// A `body` that succeeds is kept even if it ended late. A limit already running on
  /// this thread (an outer call) stays when it ends sooner.
  ///
  /// <!-- snippet context: let jpeg = [UInt8](try Data(contentsOf: URL(filePath: "ada.jpg"))) -->
  /// ```swift
  /// let decoded = try Vips.withTimeLimit(.seconds(30), source: "ada.jpg", timedOut: { $0 }) {
  ///   () throws(VipsError) in
  ///   try VipsImage.decode(bytes: jpeg, name: "ada.jpg") { _ in 4 }
  /// }
  /// ```
  public static func withTimeLimit<T, E: Error>(
    _ limit: Duration, source: String, timedOut: (VipsError) -> E,
    _ body: () throws(E) -> T
  ) throws(E) -> T {
    let outer = cvips_deadline_get()
    let ours = g_get_monotonic_time() + microseconds(limit)
    let deadline = outer != 0 && outer < ours ? outer : ours
    let outerLimit = cvips_deadline_begin(deadline)
    defer { cvips_deadline_end(outerLimit) }
    do {
      return try body()
    } catch {
      // An outer limit that ends first names its own limit when its call ends.
      guard cvips_deadline_passed() != 0, deadline == ours else { throw error }
      // libvips's "killed for image" went into the error that is replaced here.
      throw timedOut(.timedOut(source: source, seconds: seconds(limit)))
    }
  }

  /// The limit of this thread still to run, in seconds (0 when it has passed); nil when
  /// this thread has no limit.
  static var timeLeftOnThisThread: Double? {
    let deadline = cvips_deadline_get()
    guard deadline != 0 else { return nil }
    return max(0, Double(deadline - g_get_monotonic_time()) / 1_000_000)
  }

  static func microseconds(_ duration: Duration) -> gint64 {
    let (seconds, attoseconds) = duration.components
    return gint64(seconds) * 1_000_000 + gint64(attoseconds / 1_000_000_000_000)
  }

  /// `duration` in seconds.
  static func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
  }

  /// Seconds as a person writes them: `30`, `0.5`.
  static func secondsText(_ seconds: Double) -> String {
    seconds == seconds.rounded() && abs(seconds) < 1e15
      ? String(Int(seconds)) : String(seconds)
  }
}

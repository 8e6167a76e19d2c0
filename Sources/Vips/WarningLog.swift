import CVips
import CVipsShim
import Locking

/// Collects libvips's GLib warnings so that the library never writes to standard error.
enum WarningLog {
  /// The most recent warnings kept; older ones are dropped.
  static let capacity = 256
  private static let entries = Lock<[String]>([])

  static func install() {
    let levels =
      G_LOG_LEVEL_WARNING.rawValue | G_LOG_LEVEL_MESSAGE.rawValue | G_LOG_LEVEL_INFO.rawValue
      | G_LOG_LEVEL_DEBUG.rawValue | G_LOG_FLAG_FATAL.rawValue | G_LOG_FLAG_RECURSION.rawValue
    _ = g_log_set_handler(
      "VIPS", GLogLevelFlags(rawValue: levels),
      { _, level, message, _ in
        guard let message, level.rawValue & G_LOG_LEVEL_WARNING.rawValue != 0 else { return }
        _ = cvips_thread_warnings_offer(message)
        WarningLog.append(String(cString: message))
      }, nil)
  }

  static func append(_ message: String) {
    entries.withLock { entries in
      if entries.count == capacity { entries.removeFirst() }
      entries.append(message)
    }
  }

  /// What `body` returns, and the warnings libvips raised on this thread while it ran:
  /// a decode computed on this thread (``VipsImage/materializedOnThisThread()``) raises
  /// its loader's warnings here, apart from other threads' decodes.
  static func onThisThread<T>(_ body: () throws(VipsError) -> T) throws(VipsError) -> (
    T, [String]
  ) {
    cvips_thread_warnings_begin()
    func end() -> [String] {
      guard let text = cvips_thread_warnings_end() else { return [] }
      defer { g_free(text) }
      return String(cString: text).split(separator: "\n").map(String.init)
    }
    do {
      let result = try body()
      return (result, end())
    } catch {
      _ = end()
      throw error
    }
  }

  static func take() -> [String] {
    entries.withLock { entries in
      defer { entries.removeAll() }
      return entries
    }
  }
}

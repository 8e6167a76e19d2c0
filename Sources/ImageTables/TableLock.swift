import Foundation

/// A value behind a lock that ThreadSanitizer understands (a pthread mutex through
/// `NSLock`). Swift 6.3's `Synchronization.Mutex` on Linux is invisible to TSan, which
/// then reports every access under it as a race; tables take this lock only to write,
/// never on the hit path, so it costs nothing there.
final class TableLock<Value>: @unchecked Sendable {
  // Safety of @unchecked Sendable: `value` is only touched while `lock` is held.
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result)
    throws(Failure) -> Result
  {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}

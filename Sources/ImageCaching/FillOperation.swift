import Foundation
import ImageTables

/// One fill of an entity for some formats of a family, and everyone waiting for it.
/// All its state is changed under the cache's lock.
final class FillOperation: @unchecked Sendable {
  struct Key: Hashable {
    var entityID: String
    var sourceVersion: String
    var formats: [String]
  }

  let key: Key
  var task: Task<Void, Never>?
  /// Set when its waiters have their result; its task may still be returning.
  var finished = false
  var waiters: [UUID: CheckedContinuation<[String: Bitmap], any Error>] = [:]

  init(key: Key) { self.key = key }
}

/// At most `limit` pieces of work at once: URL loads wait here for their turn (as many
/// at once as the cache has workers), so a prefetch does not open a load per entity.
actor WorkLimiter {
  private var available: Int
  private var waiting: [CheckedContinuation<Void, Never>] = []

  init(limit: Int) { available = max(1, limit) }

  func acquire() async {
    if available > 0 {
      available -= 1
      return
    }
    await withCheckedContinuation { waiting.append($0) }
  }

  func release() {
    if waiting.isEmpty {
      available += 1
    } else {
      waiting.removeFirst().resume()
    }
  }
}

import Foundation
import ImageTables
import Synchronization

/// The load state every photo shares: one load at a time, its result, its progress,
/// and the events it sends.
final class PhotoLoading: Sendable {
  private struct State {
    var image: Bitmap?
    var loading = false
    var progress = 0.0
    /// Bumped by unload: a load begun before it is not kept.
    var generation = 0
    var subscribers: [UUID: AsyncStream<PhotoEvent>.Continuation] = [:]
  }
  private let state = Mutex(State())

  var image: Bitmap? { state.withLock { $0.image } }
  var isLoading: Bool { state.withLock { $0.loading } }
  var progress: Double { state.withLock { $0.progress } }

  /// Starts `work` unless a load runs or the image is here; `owner` is the photo posted
  /// with the notification.
  func load(owner: any Photo, work: @escaping @Sendable () async throws -> Bitmap) {
    let generation = state.withLock { state -> Int? in
      guard !state.loading, state.image == nil else { return nil }
      state.loading = true
      state.progress = 0
      return state.generation
    }
    guard let generation else {
      if image != nil { finish(owner: owner, generation: nil, result: .success(image!)) }
      return
    }
    Task { [weak owner] in
      let result: Result<Bitmap, any Error>
      do { result = .success(try await work()) } catch { result = .failure(error) }
      guard let owner else { return }
      self.finish(owner: owner, generation: generation, result: result)
    }
  }

  /// Keeps the result (if the load is still current) and tells everyone.
  private func finish(owner: any Photo, generation: Int?, result: Result<Bitmap, any Error>) {
    let current = state.withLock { state -> Bool in
      guard let generation else { return true }
      guard generation == state.generation else { return false }
      state.loading = false
      if case .success(let image) = result {
        state.image = image
        state.progress = 1
      }
      return true
    }
    guard current else { return }
    switch result {
    case .success:
      send(.progress(1))
      send(.loadingDidEnd(succeeded: true, error: nil))
    case .failure(let error):
      send(.loadingDidEnd(succeeded: false, error: "\(error)"))
    }
    NotificationCenter.default.post(name: .photoLoadingDidEnd, object: owner)
  }

  func unload() {
    state.withLock { state in
      state.image = nil
      state.loading = false
      state.progress = 0
      state.generation += 1
    }
  }

  /// Sets an image at once (for photos that are already in memory).
  func set(_ image: Bitmap) {
    state.withLock {
      $0.image = image
      $0.progress = 1
    }
  }

  func send(_ event: PhotoEvent) {
    if case .progress(let value) = event { state.withLock { $0.progress = value } }
    let subscribers = state.withLock { Array($0.subscribers.values) }
    for subscriber in subscribers { subscriber.yield(event) }
  }

  func events() -> AsyncStream<PhotoEvent> {
    let (stream, continuation) = AsyncStream<PhotoEvent>.makeStream()
    let id = UUID()
    state.withLock { $0.subscribers[id] = continuation }
    continuation.onTermination = { [weak self] _ in
      _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
    }
    return stream
  }
}

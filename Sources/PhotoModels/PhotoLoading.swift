import Foundation
import ImageTables
import Locking

/// The load state every photo shares: one load at a time, its result, its progress,
/// and the events it sends.
///
/// Every load that starts ends exactly once, with an event and the notification: when
/// its work returns (if it is still the current load) or when an unload cuts it short.
/// Every decision is taken under one lock, so any thread may load and unload at once.
final class PhotoLoading: Sendable {
  private struct State {
    var image: Bitmap?
    /// The number of the load running now, if one is.
    var running: Int?
    /// Loads started so far (each has its own number).
    var started = 0
    /// Loads asked for while the image was in memory: they ended at once.
    var answeredAtOnce = 0
    var progress = 0.0
    var subscribers: [UUID: AsyncStream<PhotoEvent>.Continuation] = [:]
  }
  private let state = Lock(State())

  var image: Bitmap? { state.withLock { $0.image } }
  var isLoading: Bool { state.withLock { $0.running != nil } }
  var progress: Double { state.withLock { $0.progress } }
  /// How many loads ever started, and how many calls ended at once (for tests).
  var counts: (started: Int, answeredAtOnce: Int) {
    state.withLock { ($0.started, $0.answeredAtOnce) }
  }

  /// Starts `work` unless a load runs or the image is here (then the load ends at once,
  /// successfully); `owner` is the photo posted with the notification.
  func load(owner: any Photo, work: @escaping @Sendable () async throws -> Bitmap) {
    enum Start {
      case alreadyLoaded
      case alreadyRunning
      case started(Int)
    }
    let start = state.withLock { state -> Start in
      if state.image != nil {
        state.answeredAtOnce += 1
        return .alreadyLoaded
      }
      if state.running != nil { return .alreadyRunning }
      state.started += 1
      state.running = state.started
      state.progress = 0
      return .started(state.started)
    }
    switch start {
    case .alreadyRunning: return
    case .alreadyLoaded: announce(owner: owner, succeeded: true, error: nil)
    case .started(let number):
      Task { [weak owner] in
        let result: Result<Bitmap, any Error>
        do { result = .success(try await work()) } catch { result = .failure(error) }
        guard let owner else { return }
        self.finish(number, owner: owner, result: result)
      }
    }
  }

  /// Keeps the result of load `number` if it is still the current load, and ends it.
  private func finish(_ number: Int, owner: any Photo, result: Result<Bitmap, any Error>) {
    let current = state.withLock { state -> Bool in
      guard state.running == number else { return false }
      state.running = nil
      if case .success(let image) = result {
        state.image = image
        state.progress = 1
      }
      return true
    }
    guard current else { return }
    switch result {
    case .success: announce(owner: owner, succeeded: true, error: nil)
    case .failure(let error): announce(owner: owner, succeeded: false, error: "\(error)")
    }
  }

  /// Lets the image go; a load running now ends, unsuccessfully ("unloaded"), and its
  /// work's result, when it comes, is dropped.
  func unload(owner: any Photo) {
    let cutShort = state.withLock { state -> Bool in
      let running = state.running != nil
      state.image = nil
      state.running = nil
      state.progress = 0
      return running
    }
    if cutShort {
      announce(owner: owner, succeeded: false, error: PhotoError.unloaded.description)
    }
  }

  /// Sets an image at once (for photos that are already in memory).
  func set(_ image: Bitmap) {
    state.withLock {
      $0.image = image
      $0.progress = 1
    }
  }

  /// Tells subscribers and posts the notification that a load ended.
  private func announce(owner: any Photo, succeeded: Bool, error: String?) {
    if succeeded { send(.progress(1)) }
    send(.loadingDidEnd(succeeded: succeeded, error: error))
    NotificationCenter.default.post(name: .photoLoadingDidEnd, object: owner)
  }

  func send(_ event: PhotoEvent) {
    let subscribers = state.withLock { state in
      if case .progress(let value) = event { state.progress = value }
      return Array(state.subscribers.values)
    }
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

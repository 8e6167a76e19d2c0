import Foundation
import ImageTables
import Locking

/// The load state machine of a ``Photo`` (IDMPhotoBrowser's
/// `loadUnderlyingImageAndNotify` and `unloadUnderlyingImage`): one load at a time,
/// its result, its progress, and the events and notifications it sends. Every built-in
/// photo keeps one; a photo of your own keeps one too and forwards to it, so it only
/// says where its pixels come from.
///
/// - `load(owner:work:)` starts `work` unless a load runs (then it starts nothing:
///   repeated calls make one load) or the image is here (then the load ends at once,
///   successfully).
/// - Progress the work reports is ``PhotoEvent/progress(_:)`` on ``events()`` and
///   ``Foundation/Notification/Name/photoProgress`` (MWPhotoBrowser's
///   `MWPHOTO_PROGRESS_NOTIFICATION`) with the owner as object and the fraction in its
///   `userInfo` under ``Foundation/Notification/photoProgressKey``; events of one load
///   come in order, and none after its end.
/// - A load ends exactly once, with ``PhotoEvent/progress(_:)`` `1` on success, then
///   ``PhotoEvent/loadingDidEnd(succeeded:error:)`` on ``events()`` and
///   ``Foundation/Notification/Name/photoLoadingDidEnd`` with the owner as object: when
///   its work returns or throws (a failure carries the error's description), or when
///   ``unload(owner:)`` cuts it short (a failure, ``PhotoError/unloaded``). The result of
///   work cut short is dropped when it comes; a load after the unload starts new work.
///   An unload also cancels the task the work runs in, so work that honours Task
///   cancellation (a download through an ``ImageCaching/ImageCache``) stops.
/// - Every decision is taken under one lock, so any thread may load and unload at once.
///   The work runs in a task of its own, not on the caller's thread.
///
/// ```swift
/// import ImageTables
/// import PhotoModels
///
/// /// A photo whose pixels the app draws itself: a grey square of one level.
/// final class DrawnPhoto: Photo {
///   let level: UInt8
///   private let loading = PhotoLoading()
///
///   init(level: UInt8) { self.level = level }
///
///   var underlyingImage: Bitmap? { loading.image }
///   var loadProgress: Double { loading.progress }
///   var isLoading: Bool { loading.isLoading }
///   func events() -> AsyncStream<PhotoEvent> { loading.events() }
///   func unloadUnderlyingImage() { loading.unload(owner: self) }
///
///   func loadUnderlyingImage() {
///     let level = level
///     loading.load(owner: self) { progress in
///       progress.report(0.5)  // a .progress(0.5) event, if this load is still current
///       return Bitmap(width: 8, height: 8, style: .gray8) { canvas in
///         canvas.bytes.initializeMemory(as: UInt8.self, repeating: level)
///       }
///     }
///   }
/// }
///
/// func show() async {
///   let photo = DrawnPhoto(level: 200)
///   let events = photo.events()
///   photo.loadUnderlyingImage()
///   for await event in events {
///     if case .loadingDidEnd(let succeeded, _) = event {
///       print(succeeded, photo.underlyingImage?.pixel(x: 0, y: 0) as Any)
///       break
///     }
///   }
/// }
/// ```
public final class PhotoLoading: Sendable {
  private struct State {
    var image: Bitmap?
    /// The number of the load running now, if one is.
    var running: Int?
    /// Loads started so far (each has its own number).
    var started = 0
    /// Loads asked for while the image was in memory: they ended at once.
    var answeredAtOnce = 0
    var progress = 0.0
    /// The task the running load's work runs in, once it is known.
    var work: Task<Void, Never>?
  }
  private let state = Lock(State())
  /// Held while an event of a load is decided and sent, so that a progress event checked
  /// as current is sent before the end of its load is (always taken before `state`); it
  /// counts the events sent.
  private let sending = Lock(0)

  /// Tells the work of one load how far it has come.
  public struct ProgressReporter: Sendable {
    let loading: PhotoLoading
    let number: Int
    weak var owner: (any Photo)?

    /// Records `fraction` (clamped to 0...1) as the load's progress, sends
    /// ``PhotoEvent/progress(_:)`` and posts ``Foundation/Notification/Name/photoProgress``;
    /// nothing once this load has ended or been cut short.
    public func report(_ fraction: Double) {
      loading.report(min(max(fraction, 0), 1), of: number, owner: owner)
    }
  }

  private let subscribers = EventSubscribers<PhotoEvent>()

  /// Nothing loaded.
  public init() {}

  /// Already loaded with `image` (for a photo that is in memory from the start): a load
  /// ends at once, successfully, until an unload.
  public init(image: Bitmap) {
    state.withLock {
      $0.image = image
      $0.progress = 1
    }
  }

  /// The image of the last load that succeeded, until an unload; nil while none has.
  public var image: Bitmap? { state.withLock { $0.image } }
  /// Whether a load runs now.
  public var isLoading: Bool { state.withLock { $0.running != nil } }
  /// 0 to 1: what the running load last reported, 1 once loaded, 0 after an unload or a
  /// failure.
  public var progress: Double { state.withLock { $0.progress } }
  /// How many loads ever started, and how many calls ended at once (for tests).
  var counts: (started: Int, answeredAtOnce: Int) {
    state.withLock { ($0.started, $0.answeredAtOnce) }
  }
  /// The streams from ``events()`` whose consumers have not ended (for tests).
  var subscriberCount: Int { subscribers.count }

  /// Starts `work` unless a load runs or the image is here (then the load ends at once,
  /// successfully); `owner` is the photo the notification names (held weakly: a photo
  /// that goes while its work runs announces nothing).
  public func load(owner: any Photo, work: @escaping @Sendable () async throws -> Bitmap) {
    load(owner: owner) { (_: ProgressReporter) in try await work() }
  }

  /// Starts `work`, which reports its progress, unless a load runs or the image is here
  /// (then the load ends at once, successfully).
  public func load(
    owner: any Photo, work: @escaping @Sendable (ProgressReporter) async throws -> Bitmap
  ) {
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
      let reporter = ProgressReporter(loading: self, number: number, owner: owner)
      let task = Task { [weak owner] in
        let result: Result<Bitmap, any Error>
        do { result = .success(try await work(reporter)) } catch { result = .failure(error) }
        guard let owner else { return }
        self.finish(number, owner: owner, result: result)
      }
      // Kept for an unload to cancel; cancelled now if an unload came first.
      let current = state.withLock { state -> Bool in
        guard state.running == number else { return false }
        state.work = task
        return true
      }
      if !current { task.cancel() }
    }
  }

  /// Keeps the result of load `number` if it is still the current load, and ends it.
  private func finish(_ number: Int, owner: any Photo, result: Result<Bitmap, any Error>) {
    let current = state.withLock { state -> Bool in
      guard state.running == number else { return false }
      state.running = nil
      state.work = nil
      switch result {
      case .success(let image):
        state.image = image
        state.progress = 1
      case .failure: state.progress = 0
      }
      return true
    }
    guard current else { return }
    switch result {
    case .success: announce(owner: owner, succeeded: true, error: nil)
    case .failure(let error): announce(owner: owner, succeeded: false, error: "\(error)")
    }
  }

  /// Lets the image go; a load running now ends, unsuccessfully
  /// (``PhotoError/unloaded``), its work's task is cancelled, and its result, when it
  /// comes, is dropped. With no load running, it says nothing.
  public func unload(owner: any Photo) {
    let (cutShort, work) = state.withLock { state -> (Bool, Task<Void, Never>?) in
      let running = state.running != nil
      defer { state.work = nil }
      state.image = nil
      state.running = nil
      state.progress = 0
      return (running, state.work)
    }
    work?.cancel()
    if cutShort {
      announce(owner: owner, succeeded: false, error: PhotoError.unloaded.description)
    }
  }

  /// A new stream of the events of this photo's loads, from now on. It ends when its
  /// consumer does (the task reading it is cancelled or stops, or the stream is
  /// dropped), and finishes when this goes.
  public func events() -> AsyncStream<PhotoEvent> { subscribers.stream() }

  /// Records and sends the progress of load `number`, if it is still the current load.
  private func report(_ fraction: Double, of number: Int, owner: (any Photo)?) {
    let current = sending.withLock { sent -> Bool in
      let current = state.withLock { state -> Bool in
        guard state.running == number else { return false }
        state.progress = fraction
        return true
      }
      if current {
        subscribers.send(.progress(fraction))
        sent += 1
      }
      return current
    }
    if current, let owner { postProgress(fraction, owner: owner) }
  }

  /// Tells subscribers and posts the notifications that a load ended.
  private func announce(owner: any Photo, succeeded: Bool, error: String?) {
    sending.withLock { sent in
      if succeeded { subscribers.send(.progress(1)) }
      subscribers.send(.loadingDidEnd(succeeded: succeeded, error: error))
      sent += succeeded ? 2 : 1
    }
    if succeeded { postProgress(1, owner: owner) }
    NotificationCenter.default.post(name: .photoLoadingDidEnd, object: owner)
  }

  private func postProgress(_ fraction: Double, owner: any Photo) {
    NotificationCenter.default.post(
      name: .photoProgress, object: owner, userInfo: [Notification.photoProgressKey: fraction])
  }
}

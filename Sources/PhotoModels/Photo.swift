import Foundation
import ImageTables

/// One photo a browser or scrubber shows (IDMPhotoBrowser's `IDMPhoto`).
///
/// `underlyingImage` answers at once and never starts I/O; `loadUnderlyingImage()`
/// starts an asynchronous load and, when it ends (with success or failure), delivers
/// ``PhotoEvent/loadingDidEnd(succeeded:error:)`` on ``events()`` and posts
/// ``Foundation/Notification/Name/photoLoadingDidEnd`` with the photo as object.
/// Repeated calls while a load runs start one load; a call when the image is in memory
/// ends at once, successfully. A load cut short by `unloadUnderlyingImage()` ends too:
/// unsuccessfully, with ``PhotoError/unloaded`` as the reason.
///
/// `caption`, `placeholderImage` and `videoURL` are optional in the original: they
/// default to nil here.
///
/// A photo of your own keeps a ``PhotoLoading``, which does all of this, and forwards to
/// it (its documentation has an example): it only says where the pixels come from.
public protocol Photo: AnyObject, Sendable {
  /// The image if it is in memory or in the cache now, else nil.
  var underlyingImage: Bitmap? { get }
  /// Starts loading the image, if it is not loaded or loading.
  func loadUnderlyingImage()
  /// Lets the image go (a browser calls this for photos outside its window); a load
  /// running now ends, unsuccessfully.
  func unloadUnderlyingImage()
  /// Shown over the image; nil (the default) for none.
  var caption: String? { get }
  /// Shown while the image loads; nil (the default) for none.
  var placeholderImage: Bitmap? { get }
  /// Set for a video: it has no underlying image. Nil by default.
  var videoURL: URL? { get }
  /// 0 to 1 while loading.
  var loadProgress: Double { get }
  var isLoading: Bool { get }
  /// A new stream of this photo's events, from now on; it ends when its consumer does.
  func events() -> AsyncStream<PhotoEvent>
}

extension Photo {
  public var caption: String? { nil }
  public var placeholderImage: Bitmap? { nil }
  public var videoURL: URL? { nil }
}

/// What happens to a photo.
public enum PhotoEvent: Sendable, Equatable {
  case progress(Double)
  /// A load ended; `error` says why it failed (for a load cut short by an unload,
  /// ``PhotoError/unloaded``'s description).
  case loadingDidEnd(succeeded: Bool, error: String?)
}

extension Notification.Name {
  /// Posted when a photo's load ends, with the photo as the object (IDMPhotoBrowser's
  /// `IDMPhoto_LOADING_DID_END_NOTIFICATION`).
  public static let photoLoadingDidEnd = Notification.Name("IDMPhoto_LOADING_DID_END_NOTIFICATION")

  /// Posted as a photo's load comes along, with the photo as the object and the fraction
  /// loaded (a `Double`, 0 to 1) in `userInfo` under ``Foundation/Notification/photoProgressKey``
  /// (MWPhotoBrowser's `MWPHOTO_PROGRESS_NOTIFICATION`); the same as the photo's
  /// ``PhotoEvent/progress(_:)`` events.
  ///
  /// <!-- snippet context: import ImageTables -->
  /// <!-- snippet context: let photo = BitmapPhoto(Bitmap(width: 1, height: 1, style: .gray8) { _ in }) -->
  /// ```swift
  /// let observer = NotificationCenter.default.addObserver(
  ///   forName: .photoProgress, object: photo, queue: nil
  /// ) { note in
  ///   if let fraction = note.userInfo?[Notification.photoProgressKey] as? Double {
  ///     print("\(Int(fraction * 100))% loaded")
  ///   }
  /// }
  /// NotificationCenter.default.removeObserver(observer)
  /// ```
  public static let photoProgress = Notification.Name("MWPHOTO_PROGRESS_NOTIFICATION")
}

extension Notification {
  /// The `userInfo` key of ``Foundation/Notification/Name/photoProgress``'s fraction.
  public static let photoProgressKey = "progress"
}

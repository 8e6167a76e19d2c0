/// Where a browser gets its photos (IDMPhotoBrowser's and MWPhotoBrowser's data source).
@MainActor
public protocol PhotoBrowserDataSource: AnyObject {
  func numberOfPhotos(in browser: PhotoBrowser) -> Int
  func photo(at index: Int, in browser: PhotoBrowser) -> any Photo
}

/// What a browser tells whoever draws it.
public enum PhotoBrowserEvent: Sendable, Equatable {
  /// The photo at this index is now the one shown (once per change).
  case didShowPhoto(index: Int)
  /// The photo at this index finished loading.
  case loadingDidEnd(index: Int)
  /// The photo at this index could not be loaded.
  case loadFailed(index: Int, error: String)
  /// The photo at this index, loading in the browser's window, came this far (0 to 1):
  /// its ``PhotoEvent/progress(_:)``. A view draws the current photo's as a bar.
  case progress(index: Int, fraction: Double)
}

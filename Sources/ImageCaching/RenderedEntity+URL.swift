import Foundation
import WebLoading

extension RenderedEntity {
  /// The id the render gives a URL that a `--urls` list names no id for: the URL itself,
  /// as written (`https://photos.example/a.jpg`).
  ///
  /// ```swift
  /// import Foundation
  /// import ImageCaching
  ///
  /// let url = URL(string: "https://photos.example/rome.jpg")!
  /// print(RenderedEntity.id(url: url))  // https://photos.example/rome.jpg
  /// ```
  public static func id(url: URL) -> String { url.absoluteString }
}

extension RenderedEntity {
  /// The source version the render gives a URL's response: what its validators say (a
  /// strong `ETag`, else `Last-Modified` with the length: see
  /// ``WebLoading/HTTPValidators/sourceVersion``), else, when the server sent neither, a
  /// hash of the bytes (as for a file).
  public static func sourceVersion(of validators: HTTPValidators, bytes: [UInt8]) -> String {
    validators.sourceVersion ?? sourceVersion(of: bytes)
  }

  /// The entity the render makes of a URL: its id the one a list names, else the URL; its
  /// source the URL, so that a miss fetches it through the cache's ``SourceLoader``.
  public static func entity(url: URL, id: String? = nil, sourceVersion: String) -> Entity {
    Entity(id: id ?? self.id(url: url), sourceVersion: sourceVersion, source: .url(url))
  }
}

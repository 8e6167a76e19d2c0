import Foundation

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

/// Why ``RenderedEntity`` cannot name a file as the render would.
public enum RenderedEntityError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The file is not inside the folder it was said to be found in.
  case outsideFolder(file: String, folder: String)
  case unreadable(file: String, message: String)

  public var description: String {
    switch self {
    case .outsideFolder(let file, let folder):
      "\(file): not inside \(folder), so it has no id relative to it; give the folder the "
        + "render was given, or nil for a file rendered by itself"
    case .unreadable(let file, let message): "\(file): cannot read the photo: \(message)"
    }
  }
}

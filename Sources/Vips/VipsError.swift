/// What went wrong in libvips or in the checks made before it runs.
///
/// Every case names the source it concerns (a file path, or `bytes` for an image
/// held in memory) when there is one, so a message can be shown to a user as it is:
///
/// <!-- snippet context: let path = "photos/broken.jpg" -->
/// ```swift
/// do { _ = try VipsImage(file: path) } catch { print(error) }
/// // photos/broken.jpg: the file ends early (truncated): VipsJpeg: Premature end of JPEG file
/// ```
public enum VipsError: Error, Sendable, Equatable, CustomStringConvertible {
  /// libvips itself could not start.
  case startFailed(message: String)
  /// The file does not exist or cannot be read.
  case unreadable(source: String, message: String)
  /// The file or buffer holds no bytes at all.
  case empty(source: String)
  /// No loader recognises the bytes: it is not an image, or not one libvips knows.
  case notAnImage(source: String)
  /// Only a loader that is blocked for untrusted input can read it.
  case blockedLoader(source: String, loader: String)
  /// The image data ends before the image does.
  case truncated(source: String, message: String)
  /// The header claims more pixels than the limit allows; nothing was decoded.
  case tooManyPixels(source: String, width: Int, height: Int, pages: Int, limit: Int)
  /// One side of the image is longer than the limit allows; nothing was decoded.
  case dimensionTooLarge(source: String, width: Int, height: Int, limit: Int)
  /// An argument was out of range before libvips was called.
  case invalidArgument(operation: String, message: String)
  /// A libvips operation failed; `message` is libvips's own.
  case operationFailed(operation: String, source: String?, message: String)

  /// The file or buffer the error concerns, when there is one.
  public var source: String? {
    switch self {
    case .startFailed, .invalidArgument: nil
    case .unreadable(let source, _), .empty(let source), .notAnImage(let source),
      .blockedLoader(let source, _), .truncated(let source, _),
      .tooManyPixels(let source, _, _, _, _), .dimensionTooLarge(let source, _, _, _):
      source
    case .operationFailed(_, let source, _): source
    }
  }

  /// What kind of thing is wrong; see ``Kind``.
  public var kind: Kind {
    switch self {
    case .startFailed, .invalidArgument: .other
    case .unreadable: .unreadable
    case .empty: .empty
    case .notAnImage: .notAnImage
    case .blockedLoader: .blocked
    case .truncated: .truncated
    case .tooManyPixels, .dimensionTooLarge: .tooLarge
    case .operationFailed: .other
    }
  }

  /// What is wrong, without the source: libvips starts each line of its own with the
  /// file's name, which ``description`` says once, in front.
  public var reason: String {
    guard let source else { return ownReason }
    return ownReason.replacing("\(source): ", with: "")
  }

  private var ownReason: String {
    switch self {
    case .startFailed(let message):
      "libvips could not start: \(message)"
    case .unreadable(_, let message):
      "cannot read the file: \(message)"
    case .empty:
      "the file is empty (0 bytes)"
    case .notAnImage:
      "not an image: no loader recognises its contents"
    case .blockedLoader(_, let loader):
      "only the loader '\(loader)' can read it, and it is blocked for untrusted input"
    case .truncated(_, let message):
      "the image data ends early (truncated): \(message)"
    case .tooManyPixels(_, let width, let height, let pages, let limit):
      "too many pixels: \(width)x\(height)\(pages > 1 ? " x \(pages) pages" : "") is more "
        + "than the limit of \(limit) pixels; refused before decoding"
    case .dimensionTooLarge(_, let width, let height, let limit):
      "too large: \(width)x\(height) has a side longer than the limit of \(limit) pixels; "
        + "refused before decoding"
    case .invalidArgument(let operation, let message):
      "\(operation): \(message)"
    case .operationFailed(let operation, _, let message):
      "\(operation) failed: \(message)"
    }
  }

  public var description: String {
    if let source { "\(source): \(reason)" } else { reason }
  }

  /// This decode failure, named from what the file itself shows: a file cut short is
  /// `.truncated` whatever message libvips's shared error buffer held, and a whole
  /// file is never called truncated because of another decode's message.
  func classified(truncated: Bool, operation: String = "thumbnail") -> VipsError {
    switch self {
    case .truncated(let source, let message) where !truncated:
      return .operationFailed(operation: operation, source: source, message: message)
    case .operationFailed(_, let source?, let message) where truncated:
      let words = ["truncated", "premature end", "unexpected end"]
      let own = words.contains(where: message.lowercased().contains)
      return .truncated(
        source: source, message: own ? message : TruncationCheck.endsEarly)
    default:
      return self
    }
  }

  /// Builds the error for a failed libvips call from libvips's error buffer,
  /// recognising a truncated input by libvips's and its codecs' own words.
  static func fromLibvips(operation: String, source: String?) -> VipsError {
    let message = Vips.takeErrorMessage()
    let lowered = message.lowercased()
    let truncationWords = ["truncated", "premature end", "unexpected end", "end of file", "eof"]
    if let source, truncationWords.contains(where: lowered.contains) {
      return .truncated(source: source, message: message)
    }
    return .operationFailed(operation: operation, source: source, message: message)
  }
}

/// What went wrong in libvips or in the checks made before it runs.
///
/// Every case names the source it concerns (a file path, or `bytes` for an image
/// held in memory) when there is one, so a message can be shown to a user as it is:
///
/// <!-- snippet context: let path = "photos/broken.jpg" -->
/// ```swift
/// do { _ = try VipsImage(file: path) } catch { print(error) }
/// // photos/broken.jpg: the image data ends early (truncated) (libvips: VipsJpeg: Premature end of input file)
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
  /// Only a loader that is blocked for untrusted input can read it: `loader` (its
  /// libvips name), and what `format` the file is when its signature says so.
  case blockedLoader(source: String, loader: String, format: String? = nil)
  /// The image data ends before the image does: `message` is libvips's text (said after
  /// ours, in "(libvips: ...)"), or our own reason from the file's bytes.
  case truncated(source: String, message: String)
  /// The header claims more pixels than the limit allows; nothing was decoded.
  case tooManyPixels(source: String, width: Int, height: Int, pages: Int, limit: Int)
  /// One side of the image is longer than the limit allows; nothing was decoded.
  case dimensionTooLarge(source: String, width: Int, height: Int, limit: Int)
  /// Decoding the image would take `bytes` of memory (``DecodeMemory``; `holds` says what
  /// the loader keeps, when that is most of it), more than the `allowed` bytes a file of
  /// `fileSize` bytes may take (``ImageLimits/maxDecodeMemory``, or `perFileByte` bytes for
  /// each byte of the file when that gave more; 0 when it did not); nothing was decoded.
  case decodeMemoryTooLarge(
    source: String, bytes: Int, holds: String?, allowed: Int, fileSize: Int, perFileByte: Int)
  /// An argument was out of range before libvips was called.
  case invalidArgument(operation: String, message: String)
  /// A libvips operation failed; `message` is libvips's own.
  case operationFailed(operation: String, source: String?, message: String)
  /// Decoding and processing the image took longer than its time limit of `seconds`
  /// (``Vips/withTimeLimit(_:source:timedOut:_:)``); it was stopped.
  case timedOut(source: String, seconds: Double)
  /// Not started: `outstanding` workers abandoned at earlier images' time limits (the
  /// most allowed at once, 4 in a process) are still inside libvips,
  /// each spinning a core until it returns; the image may be tried again once they end.
  case tooManyAbandonedWorkers(source: String, outstanding: Int)
  /// The file is damaged, cut short or a variant no loader here reads: `words` say what
  /// is wrong in ours (from ``LibvipsMessage``'s table, or from the file's own bytes),
  /// `message` is libvips's text, kept after them for the curious.
  case badInput(source: String, kind: Kind, words: String, message: String)

  /// The file or buffer the error concerns, when there is one.
  public var source: String? {
    switch self {
    case .startFailed, .invalidArgument: nil
    case .unreadable(let source, _), .empty(let source), .notAnImage(let source),
      .blockedLoader(let source, _, _), .truncated(let source, _),
      .badInput(let source, _, _, _), .timedOut(let source, _),
      .tooManyAbandonedWorkers(let source, _),
      .tooManyPixels(let source, _, _, _, _), .dimensionTooLarge(let source, _, _, _),
      .decodeMemoryTooLarge(let source, _, _, _, _, _):
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
    case .tooManyPixels, .dimensionTooLarge, .decodeMemoryTooLarge: .tooLarge
    case .operationFailed(_, _, let message): LibvipsMessage.entry(for: message)?.kind ?? .other
    case .badInput(_, let kind, _, _): kind
    case .timedOut, .tooManyAbandonedWorkers: .timedOut
    }
  }

  /// What is wrong, without the source: libvips starts each line of its own with the
  /// file's name, which ``description`` says once, in front.
  public var reason: String {
    guard let source else { return ownReason }
    return ownReason.replacing("\(source): ", with: "")
      .replacing("\"\(source)\"", with: "the file")
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
    case .blockedLoader(_, let loader, let format):
      "it is \(format ?? LibvipsMessage.blockedFormat(loader: loader) ?? "a file"), which "
        + "only \(BlockedFormat.loaderName(loader)) reads, and that loader "
        + LibvipsMessage.whyBlocked
    case .truncated(_, let message) where TruncationCheck.isOwnReason(message):
      "the image data ends early (truncated): \(message)"
    case .truncated(_, let message):
      "the image data ends early (truncated) (libvips: \(message))"
    case .tooManyPixels(_, let width, let height, let pages, let limit):
      "too many pixels: \(width)x\(height)\(pages > 1 ? " x \(pages) pages" : "") is more "
        + "than the limit of \(limit) pixels; refused before decoding"
    case .dimensionTooLarge(_, let width, let height, let limit):
      "too large: \(width)x\(height) has a side longer than the limit of \(limit) pixels; "
        + "refused before decoding"
    case .decodeMemoryTooLarge(_, let bytes, let holds, let allowed, let fileSize, let perByte):
      "decoding it would take about \(ByteCountText.describe(bytes)) of memory"
        + (holds.map { " (\($0))" } ?? "") + ", more than the "
        + "\(ByteCountText.describe(allowed)) allowed for a file of \(ByteCountText.describe(fileSize))"
        + (perByte > 0 ? " (\(perByte) bytes for each of its bytes)" : "")
        + "; refused before decoding as a likely decompression bomb (if it is a real photo, "
        + "a limit of \((bytes + (1 << 20) - 1) >> 20) MiB reads it: --max-decode-memory)"
    case .invalidArgument(let operation, let message):
      "\(operation): \(message)"
    case .operationFailed(let operation, _, let message)
    where message == LibvipsMessage.noReason:
      "\(operation) failed, and libvips gave no reason"
    case .operationFailed(let operation, _, let message):
      "\(operation) failed: \(message)"
    case .timedOut(_, let seconds):
      "took longer than \(Vips.secondsText(seconds)) s to decode and process (the time "
        + "limit of one image); stopped"
    case .tooManyAbandonedWorkers(_, let outstanding):
      "not started: \(outstanding) earlier images passed their time limit in a step libvips "
        + "cannot stop and are still running in it, the most allowed at once (each uses a "
        + "core until libvips returns); try it again once they end"
    case .badInput(_, _, let words, let message) where message == LibvipsMessage.noReason:
      words
    case .badInput(_, _, let words, let message):
      "\(words) (libvips: \(message))"
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
      // The words of a truncation were another decode's: the table names the rest.
      let own = message.split(separator: "; ").filter { line in
        !Self.truncationWords.contains(where: line.lowercased().contains)
      }
      if let entry = LibvipsMessage.entry(for: own.joined(separator: "; ")) {
        return .badInput(source: source, kind: entry.kind, words: entry.words, message: message)
      }
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

  /// The words by which libvips and its codecs say that a file is cut short.
  static let truncationWords = [
    "truncated", "premature end", "unexpected end", "end of file", "eof",
  ]

  /// Builds the error for a failed libvips call from libvips's error buffer: what the
  /// file's own bytes show is wrong (``FileDamage``) when `source` is a file, else a
  /// truncated input by libvips's and its codecs' own words, else what
  /// ``LibvipsMessage``'s table says libvips's message means.
  static func fromLibvips(operation: String, source: String?) -> VipsError {
    let message = Vips.takeErrorMessage(for: source)
    guard let source else {
      return .operationFailed(operation: operation, source: source, message: message)
    }
    if let bytes = FileDamage.contents(ofFile: source),
      let finding = FileDamage.inspect(bytes)
    {
      return .badInput(
        source: source, kind: finding.kind, words: finding.words, message: message)
    }
    return worded(message, operation: operation, source: source)
  }

  /// libvips's `message` about `source`, in our words where they say more: a truncation,
  /// or a row of ``LibvipsMessage``'s table; else the operation's failure as it is.
  static func worded(_ message: String, operation: String, source: String) -> VipsError {
    let lowered = message.lowercased()
    if truncationWords.contains(where: lowered.contains) {
      return .truncated(source: source, message: message)
    }
    if let entry = LibvipsMessage.entry(for: message) {
      return .badInput(source: source, kind: entry.kind, words: entry.words, message: message)
    }
    return .operationFailed(operation: operation, source: source, message: message)
  }
}

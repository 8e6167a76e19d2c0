import Foundation

/// The URLs of `imgtool render --urls FILE`: one a line, `#` comments and blank lines
/// passed over, and an optional entity id before the URL and a tab (`id<TAB>url`); a
/// URL without one is its own id. `-` reads standard input.
struct URLList: Equatable {
  struct Entry: Equatable {
    var url: URL
    /// The entity id the line names, else the URL itself.
    var entityID: String
    /// Its line in the list (from 1), for messages.
    var line: Int
  }

  var entries: [Entry]

  /// Reads and parses `path` (`-`: standard input).
  static func read(_ path: String) throws(URLListError) -> URLList {
    let data: Data
    if path == "-" {
      data = FileHandle.standardInput.readDataToEndOfFile()
    } else {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw .unreadable(file: path, message: "no such file")
      }
      guard !isDirectory.boolValue else {
        throw .unreadable(file: path, message: "it is a folder; give a file of URLs")
      }
      do {
        data = try Data(contentsOf: URL(fileURLWithPath: path))
      } catch {
        throw .unreadable(file: path, message: Self.message(error))
      }
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw .unreadable(file: path, message: "it is not UTF-8 text")
    }
    return try URLList(text: text, file: path == "-" ? "standard input" : path)
  }

  /// Parses a list; `file` names it in errors.
  init(text: String, file: String) throws(URLListError) {
    entries = []
    for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
      .enumerated()
    {
      let line = raw
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
      var id: String?
      var address = trimmed
      if let tab = line.firstIndex(of: "\t") {
        let named = line[..<tab].trimmingCharacters(in: .whitespaces)
        address = line[line.index(after: tab)...].trimmingCharacters(in: .whitespaces)
        guard !named.isEmpty else {
          throw .badLine(
            file: file, line: index + 1, text: String(line),
            reason: "the id before the tab is empty; write 'id<TAB>url', or the URL alone")
        }
        id = named
      }
      guard let url = Self.webURL(address) else {
        throw .badLine(
          file: file, line: index + 1, text: String(line),
          reason: address.contains("\t")
            ? "more than one tab; write 'id<TAB>url', or the URL alone"
            : Self.problem(address))
      }
      entries.append(Entry(url: url, entityID: id ?? url.absoluteString, line: index + 1))
    }
  }

  /// `text` as an http or https URL with a host (any case of the scheme), else nil.
  static func webURL(_ text: String) -> URL? {
    guard Self.looksLikeWebURL(text), !text.contains(where: \.isWhitespace),
      let url = URL(string: text), let scheme = url.scheme?.lowercased(),
      ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty,
      url.port.map({ (1...65535).contains($0) }) ?? true
    else { return nil }
    return url
  }

  /// Why `text` is not a URL the render downloads (``webURL(_:)`` is nil), in words that
  /// say what to write instead.
  static func problem(_ text: String) -> String {
    if text.contains(where: \.isWhitespace) {
      return "it holds a space: write a space in a URL as %20; a comment goes on a line of "
        + "its own, and an id is followed by one tab, not spaces ('id<TAB>url')"
    }
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
      return "not a valid URL"
    }
    if scheme == "file" {
      return "a file: URL; give the file's path instead (only http:// and https:// URLs are "
        + "downloaded)"
    }
    guard ["http", "https"].contains(scheme) else {
      return "only http:// and https:// URLs are downloaded, not \(scheme): ones"
    }
    if let port = url.port, !(1...65535).contains(port) {
      return "\(port) is not a port (1 to 65535)"
    }
    return "no host after \(scheme)://"
  }

  /// Whether a path given to the render is meant as a URL (`http://` or `https://`).
  static func looksLikeWebURL(_ text: String) -> Bool {
    let lowered = text.lowercased()
    return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
  }

  private static func message(_ error: any Error) -> String {
    error.localizedDescription
  }
}

/// Why a `--urls` list cannot be used; names the file and the line.
enum URLListError: Error, Equatable, CustomStringConvertible {
  case unreadable(file: String, message: String)
  case badLine(file: String, line: Int, text: String, reason: String)

  var description: String {
    switch self {
    case .unreadable(let file, let message): "--urls \(file): cannot read the list: \(message)"
    case .badLine(let file, let line, let text, let reason):
      "--urls \(file):\(line): '\(text)': \(reason)"
    }
  }
}

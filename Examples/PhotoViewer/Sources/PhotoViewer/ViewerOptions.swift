/// `photo-viewer [FOLDER] [--cache DIR] [--family NAME] [--manifest FILE] [--help]`.
struct ViewerOptions: Equatable {
  /// A folder of photos to render in the background and show as they land; nil to show
  /// a cache an `imgtool render` made.
  var folder: String?
  /// The cache to read (and, with a folder, the one the render writes); nil: with a
  /// folder, one of its own under `$XDG_CACHE_HOME/imgtool`, else the manifest's.
  var cache: String?
  var family: String
  var manifest: String?
  /// `--help` or `-h`: print ``ViewerOptions/help`` and exit.
  var help = false

  /// The family shown when `--family` is not given.
  static let defaultFamily = "photo"

  static let usage =
    "usage: photo-viewer FOLDER [--cache DIR] [--family NAME] [--manifest FILE]\n"
    + "       photo-viewer --cache DIR [--family NAME] [--manifest FILE]"

  /// What `--help` prints: how to run it, and the keys.
  static var help: String {
    """
    photo-viewer: a GTK 4 window over a family of photos rendered by imgtool.

    \(usage)

      FOLDER          photos to show: rendered in the background by imgtool (into
                      $XDG_CACHE_HOME/imgtool/photo-viewer/..., or --cache DIR), each
                      shown as soon as its entries land; the folder is only read
      --cache DIR     the cache to show (what imgtool render --cache DIR wrote), read
                      only: renders into it and other viewers may run beside this one
      --family NAME   the family to show (default: \(defaultFamily))
      --manifest FILE the manifest that defines the family (default: imgtool.json
                      here if there is one, else the built-in one)

    Keys:
    \(ViewerKeys.helpText.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
    """
  }

  /// Reads the command line (without the program's name); `--name value` or
  /// `--name=value`, and at most one folder.
  init(arguments: [String]) throws(ViewerError) {
    var values: [String: String] = [:]
    var folders: [String] = []
    var rest = arguments[...]
    while let argument = rest.popFirst() {
      if argument == "--help" || argument == "-h" {
        help = true
        continue
      }
      guard argument.hasPrefix("--") else {
        guard !argument.hasPrefix("-") || argument == "-" else {
          throw .usage("unknown option '\(argument)'")
        }
        folders.append(argument)
        continue
      }
      var name = String(argument.dropFirst(2))
      var value: String?
      if let equals = name.firstIndex(of: "=") {
        value = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      guard ["cache", "family", "manifest"].contains(name) else {
        throw .usage("unknown option '--\(name)'")
      }
      guard values[name] == nil else { throw .usage("--\(name) is given twice") }
      if value == nil { value = rest.popFirst() }
      guard let value, !value.isEmpty, !value.hasPrefix("--") else {
        throw .usage("--\(name) needs a value")
      }
      values[name] = value
    }
    guard folders.count <= 1 else {
      throw .usage("one folder at a time: '\(folders[0])' and '\(folders[1])' were given")
    }
    folder = folders.first
    cache = values["cache"]
    family = values["family"] ?? Self.defaultFamily
    manifest = values["manifest"]
    guard help || folder != nil || cache != nil else {
      throw .usage("give a FOLDER of photos, or --cache DIR")
    }
  }
}

/// `photo-viewer --cache DIR --family NAME [--manifest FILE]`.
struct ViewerOptions: Equatable {
  var cache: String
  var family: String
  var manifest: String?

  /// Reads the command line (without the program's name); `--name value` or
  /// `--name=value`.
  init(arguments: [String]) throws(ViewerError) {
    var values: [String: String] = [:]
    var rest = arguments[...]
    while let argument = rest.popFirst() {
      guard argument.hasPrefix("--") else {
        throw .usage("unexpected argument '\(argument)'")
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
    guard let cache = values["cache"] else { throw .usage("--cache DIR is required") }
    guard let family = values["family"] else { throw .usage("--family NAME is required") }
    self.cache = cache
    self.family = family
    manifest = values["manifest"]
  }
}

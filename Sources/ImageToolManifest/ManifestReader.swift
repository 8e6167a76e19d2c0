import Foundation
import ImageProcessing
import ImageTables

/// Checks a manifest's JSON field by field, naming each field in its errors.
struct ManifestReader {
  let path: String

  static let topKeys = [
    "cache", "device", "background", "plugins", "maxReaders", "defaults", "formats",
  ]
  static let formatKeys = [
    "name", "family", "size", "scale", "style", "maximumCount", "devices", "protection", "pipeline",
  ]
  static let defaultKeys = ["scale", "style", "maximumCount", "devices", "protection", "pipeline"]

  /// Every mistake found so far, in the order of the file: reading goes on past one
  /// (the field is then left at its default, the format out) so that all are named.
  var problems: [ManifestError] = []

  /// The manifest, with the formats and fields that are right; ``problems`` names the
  /// rest (only a top that is not an object stops the reading).
  mutating func manifest(_ json: Any, folder: URL) throws(ManifestError) -> Manifest {
    guard let top = json as? [String: Any] else { throw fail("(top)", "must be an object") }
    var problems: [ManifestError] = []
    defer { self.problems = problems }
    // Runs `read`, noting its mistake instead of stopping; nil when it had one.
    func noting<T>(_ read: () throws(ManifestError) -> T) -> T? {
      do {
        return try read()
      } catch {
        problems.append(error)
        return nil
      }
    }
    problems += unknownKeys(top, allowed: Self.topKeys, at: "")
    let defaults: [String: Any] =
      noting { () throws(ManifestError) in try object(top["defaults"], "defaults") }
      .flatMap { $0 } ?? [:]
    problems += unknownKeys(defaults, allowed: Self.defaultKeys, at: "defaults.")
    let formatList = top["formats"] as? [Any] ?? []
    if formatList.isEmpty {
      problems.append(fail("formats", "must be a list of at least one format"))
    }
    var formats: [ImageFormat] = []
    for (index, item) in formatList.enumerated() {
      let at = "formats[\(index)]"
      guard let entry = item as? [String: Any] else {
        problems.append(fail(at, "must be an object"))
        continue
      }
      problems += unknownKeys(entry, allowed: Self.formatKeys, at: at + ".")
      guard
        let format = noting({ () throws(ManifestError) in
          try self.format(entry, defaults: defaults, at: at)
        })
      else { continue }
      if formats.contains(where: { $0.name == format.name }) {
        problems.append(fail(at + ".name", "'\(format.name)' names another format already"))
        continue
      }
      formats.append(format)
    }
    let backgroundText: String =
      noting { () throws(ManifestError) in try string(top["background"], "background") }
      .flatMap { $0 } ?? "#ffffff"
    let background = ArgumentValue.parseColor(backgroundText) ?? RGBA(255, 255, 255)
    if ArgumentValue.parseColor(backgroundText) == nil {
      problems.append(
        fail("background", "'\(backgroundText)' is not a colour (#rgb, #rrggbb or #rrggbbaa)"))
    }
    let cache = noting { () throws(ManifestError) in try string(top["cache"], "cache") }
      .flatMap { $0 }
    let device = noting { () throws(ManifestError) in try string(top["device"], "device") }
      .flatMap { $0 }
    var manifest = Manifest(
      cache: cache, device: DeviceClass(rawValue: device ?? "server"),
      background: background, formats: formats, origin: path, folder: folder)
    manifest.plugins = noting { () throws(ManifestError) in try plugins(top["plugins"]) } ?? []
    let maxReaders = noting { () throws(ManifestError) -> Int? in
      guard let value = try integer(top["maxReaders"], "maxReaders") else { return nil }
      guard (1...65_536).contains(value) else {
        throw fail(
          "maxReaders", "\(value) is outside 1...65536 (processes reading a table at once)")
      }
      return value
    }
    if let maxReaders = maxReaders.flatMap({ $0 }) { manifest.maxReaders = maxReaders }
    return manifest
  }

  /// `"plugins": ["path/to/libPlugin.so", ...]`: paths of shared libraries.
  private func plugins(_ value: Any?) throws(ManifestError) -> [String] {
    guard let value else { return [] }
    guard let list = value as? [Any] else {
      throw fail("plugins", "must be a list of paths to plugin libraries (.so)")
    }
    var paths: [String] = []
    for (index, item) in list.enumerated() {
      guard let path = item as? String, !path.isEmpty else {
        throw fail("plugins[\(index)]", "must be the path of a plugin library (.so)")
      }
      paths.append(path)
    }
    return paths
  }

  private func format(_ entry: [String: Any], defaults: [String: Any], at: String)
    throws(ManifestError)
    -> ImageFormat
  {
    func value(_ key: String) -> (Any?, String) {
      entry[key] != nil ? (entry[key], "\(at).\(key)") : (defaults[key], "defaults.\(key)")
    }
    guard let name = try string(entry["name"], "\(at).name") else {
      throw fail("\(at).name", "is required")
    }
    // Optional, as in FastImageCache: a format without a family is a family of its own.
    let family = try string(entry["family"], "\(at).family")
    let (width, height) = try size(entry["size"], "\(at).size")
    let (scaleValue, scaleField) = value("scale")
    let scale = try integer(scaleValue, scaleField) ?? 2
    let (styleValue, styleField) = value("style")
    let styleText = try string(styleValue, styleField) ?? "bgra32"
    guard let style = PixelStyle(rawValue: styleText) else {
      throw fail(styleField, "'\(styleText)' is not a style; use bgra32, bgr32, bgr555 or gray8")
    }
    let (countValue, countField) = value("maximumCount")
    let maximumCount = try integer(countValue, countField) ?? 1000
    let (devicesValue, devicesField) = value("devices")
    var devices = DeviceClass.all
    if let devicesValue {
      guard let list = devicesValue as? [String] else {
        throw fail(devicesField, "must be a list of names")
      }
      devices = Set(list.map(DeviceClass.init(rawValue:)))
    }
    let (protectionValue, protectionField) = value("protection")
    let protectionText = try string(protectionValue, protectionField) ?? "none"
    guard let protection = ProtectionMode(rawValue: protectionText) else {
      throw fail(
        protectionField,
        "'\(protectionText)' is not a protection mode; use none, complete or completeUntilFirstUserAuthentication"
      )
    }
    let (pipelineValue, pipelineField) = value("pipeline")
    let pipeline = try string(pipelineValue, pipelineField) ?? "fit"
    do {
      return try ImageFormat(
        name: name, family: family, width: width, height: height, scale: scale, style: style,
        maximumCount: maximumCount, devices: devices, protectionMode: protection, pipeline: pipeline
      )
    } catch {
      switch error {
      case .invalidName(let field, _, let reason): throw fail("\(at).\(field)", reason)
      case .invalidValue(_, let field, let reason):
        throw fail(field == "size" ? "\(at).size" : value(field).1, reason)
      }
    }
  }

  /// `"32x32"`, `[32, 32]` or `{"width": 32, "height": 32}`.
  private func size(_ value: Any?, _ field: String) throws(ManifestError) -> (Int, Int) {
    let expected =
      "must be \"WIDTHxHEIGHT\" in points, [width, height] or {\"width\": w, \"height\": h}"
    switch value {
    case let text as String:
      let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
      guard parts.count == 2 else { throw fail(field, "'\(text)' \(expected)") }
      return (parts[0], parts[1])
    case let list as [Any]:
      guard list.count == 2, let width = list[0] as? Int, let height = list[1] as? Int else {
        throw fail(field, expected)
      }
      return (width, height)
    case let object as [String: Any]:
      guard let width = object["width"] as? Int, let height = object["height"] as? Int else {
        throw fail(field, expected)
      }
      return (width, height)
    case nil:
      throw fail(field, "is required")
    default:
      throw fail(field, expected)
    }
  }

  private func string(_ value: Any?, _ field: String) throws(ManifestError) -> String? {
    guard let value else { return nil }
    guard let text = value as? String else { throw fail(field, "must be a string") }
    return text
  }

  private func integer(_ value: Any?, _ field: String) throws(ManifestError) -> Int? {
    guard let value else { return nil }
    // JSONSerialization gives true and false as numbers of C type char ("c").
    let isBoolean = (value as? NSNumber).map { String(cString: $0.objCType) == "c" } ?? false
    if !isBoolean {
      if let integer = value as? Int { return integer }
      if let number = value as? Double, let integer = Int(exactly: number) { return integer }
    }
    throw fail(field, "must be a whole number")
  }

  private func object(_ value: Any?, _ field: String) throws(ManifestError) -> [String: Any]? {
    guard let value else { return nil }
    guard let object = value as? [String: Any] else { throw fail(field, "must be an object") }
    return object
  }

  /// An error for every key of `object` not in `allowed`, in name order.
  private func unknownKeys(_ object: [String: Any], allowed: [String], at prefix: String)
    -> [ManifestError]
  {
    object.keys.sorted().filter { !allowed.contains($0) }.map { key in
      let hint = Suggestion.closest(to: key, among: allowed).map { "; did you mean '\($0)'?" } ?? ""
      return fail(prefix + key, "unknown field\(hint)")
    }
  }

  private func fail(_ field: String, _ message: String) -> ManifestError {
    .invalidField(path: path, field: field, message: message)
  }
}

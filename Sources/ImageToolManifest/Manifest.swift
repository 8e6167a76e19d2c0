import Foundation
import ImageProcessing
import ImageTables

/// `imgtool.json`: the formats a project renders, their defaults, and where the
/// cache lives. With none, ``builtIn`` serves.
///
/// `imgtool` reads it through this module, and so can an app that reads (or fills)
/// the same cache, without the command line:
///
/// ```swift
/// import ImageCaching
/// import ImageProcessing
/// import ImageToolManifest
///
/// let manifest = try Manifest.load(path: "imgtool.json")
/// let registry = ProcessorRegistry.withBuiltIns()
/// try manifest.loadPlugins(into: registry)
/// let cache = try ImageCache(configuration: .init(
///   directory: manifest.cacheDirectory(override: nil),
///   formats: manifest.formats(family: manifest.families[0]),
///   device: manifest.device, background: manifest.background, registry: registry))
/// ```
///
/// The file:
///
/// ```json
/// {
///   "cache": ".imgtool-cache",
///   "device": "server",
///   "background": "#ffffff",
///   "plugins": ["Examples/FaceCrop/.build/release/libFaceCrop.so"],
///   "defaults": { "scale": 2, "style": "bgra32", "maximumCount": 1000 },
///   "formats": [
///     { "name": "avatar.small", "family": "avatar", "size": "32x32",
///       "pipeline": "fill(crop: attention) | circle" }
///   ]
/// }
/// ```
public struct Manifest: Sendable {
  /// Where the cache lives, relative to the manifest's folder; nil for the default.
  public var cache: String?
  /// The device class whose formats a cache keeps (`"device"`, `server` by default).
  public var device: DeviceClass
  /// What transparency is flattened onto for opaque styles (`"background"`).
  public var background: RGBA
  /// Every format, in the order the file lists them, defaults applied.
  public var formats: [ImageFormat]
  /// Processor plugins the formats need, as the manifest writes them (relative paths
  /// start from its folder): loaded before its pipelines are built.
  public var plugins: [String] = []
  /// How many processes may read each table at once (`"maxReaders"`, 1...65,536); nil
  /// for ``ImageTable/defaultMaxReaders`` (see ``ImageTable/Options/maxReaders``).
  public var maxReaders: Int?
  /// The manifest file, or "built-in".
  public var origin: String
  /// The folder relative cache paths start from.
  public var folder: URL

  /// The default file name, looked for in the current folder.
  public static let fileName = "imgtool.json"
  /// The default cache folder, in the current folder.
  public static let defaultCache = ".imgtool-cache"

  /// At scale 2: family `avatar` (32, 64 and 128 point squares, attention crop, circle,
  /// `bgra32`) and family `photo` (a `bgr32` centre-cropped thumbnail and a screen-sized fit).
  public static var builtIn: Manifest {
    let avatar = "fill(crop: attention) | circle"
    let formats = [
      ("avatar.small", "avatar", 32, 32, PixelStyle.bgra32, 1000, avatar),
      ("avatar.medium", "avatar", 64, 64, .bgra32, 1000, avatar),
      ("avatar.large", "avatar", 128, 128, .bgra32, 1000, avatar),
      ("photo.thumb", "photo", 75, 75, .bgr32, 1000, "fill(crop: centre)"),
      ("photo.screen", "photo", 360, 640, .bgr32, 100, "fit"),
    ].map { name, family, width, height, style, count, pipeline in
      // Built-in values are valid: making them cannot fail.
      try! ImageFormat(
        name: name, family: family, width: width, height: height, scale: 2, style: style,
        maximumCount: count, pipeline: pipeline)
    }
    return Manifest(
      cache: nil, device: .server, background: RGBA(255, 255, 255), formats: formats,
      origin: "built-in", folder: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
  }

  /// The manifest a command uses: `--manifest FILE`, else `imgtool.json` in the current
  /// folder if there is one, else the built-in.
  public static func resolve(explicit: String?) throws(ManifestError) -> Manifest {
    if let explicit { return try load(path: explicit) }
    let local = FileManager.default.currentDirectoryPath + "/" + fileName
    // An empty imgtool.json defines nothing: it is what `imgtool manifest > imgtool.json`
    // leaves for imgtool to read while the shell waits to fill it, so it counts as absent.
    let size = (try? FileManager.default.attributesOfItem(atPath: local))?[.size] as? NSNumber
    return FileManager.default.fileExists(atPath: local) && size?.intValue != 0
      ? try load(path: local) : builtIn
  }

  /// The cache folder: `--cache DIR`, else the manifest's, else `.imgtool-cache` here.
  public func cacheDirectory(override: String?) -> URL {
    if let override { return URL(fileURLWithPath: override) }
    guard let cache else {
      return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        .appendingPathComponent(Self.defaultCache)
    }
    return cache.hasPrefix("/") ? URL(fileURLWithPath: cache) : folder.appendingPathComponent(cache)
  }

  /// Where each plugin is: relative paths from the manifest's folder.
  public var pluginPaths: [String] {
    plugins.map { $0.hasPrefix("/") ? $0 : folder.appendingPathComponent($0).path }
  }

  /// Loads the manifest's plugins into `registry`, each once however often asked; an
  /// error names the file and the field (`plugins[1]`) and says what is wrong.
  public func loadPlugins(into registry: ProcessorRegistry) throws(ManifestError) {
    for (index, path) in pluginPaths.enumerated() {
      do {
        try PluginLoader.loadOnce(path: path, into: registry)
      } catch {
        throw .invalidField(path: origin, field: "plugins[\(index)]", message: "\(error)")
      }
    }
  }

  /// The formats of `family`.
  public func formats(family: String) -> [ImageFormat] { formats.filter { $0.family == family } }

  /// The families of ``formats``, each once, in the order they first appear.
  public var families: [String] {
    formats.reduce(into: [String]()) { if !$0.contains($1.family) { $0.append($1.family) } }
  }

  /// Reads and checks a manifest file; every error names the field (the first mistake
  /// of the file is thrown).
  public static func load(path: String) throws(ManifestError) -> Manifest {
    let (manifest, problems) = try read(path: path)
    if let first = problems.first { throw first }
    return manifest
  }

  /// Reads a manifest file, going on past a mistake in a field: the manifest with what
  /// is right (a wrong format left out) and every mistake, in the order of the file
  /// (`imgtool manifest --check` names them all). A file that cannot be read or parsed
  /// is thrown.
  package static func read(path: String) throws(ManifestError) -> (
    manifest: Manifest, problems: [ManifestError]
  ) {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw .unreadable(
        path: path,
        message: FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file"
      )
    }
    guard !data.isEmpty else {
      throw .invalidJSON(path: path, message: "the file is empty (0 bytes)")
    }
    let json: Any
    do {
      json = try JSONSerialization.jsonObject(with: data)
    } catch {
      let message = "\((error as NSError).userInfo["NSDebugDescription"] ?? error)"
      throw .invalidJSON(path: path, message: Self.located(message, in: data))
    }
    var reader = ManifestReader(path: path)
    let manifest = try reader.manifest(
      json, folder: URL(fileURLWithPath: path).deletingLastPathComponent())
    return (manifest, reader.problems)
  }

  /// Foundation's JSON errors give a character offset ("around character 42"); an
  /// editor wants a line and column, so they lead the message when the offset is there.
  static func located(_ message: String, in data: Data) -> String {
    guard let range = message.range(of: "around character "),
      let offset = Int(message[range.upperBound...].prefix { $0.isNumber }),
      offset <= data.count
    else { return message }
    let before = data.prefix(offset)
    let line = before.count { $0 == UInt8(ascii: "\n") } + 1
    let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? before.startIndex
    let column = String(decoding: data[lineStart..<before.endIndex], as: UTF8.self).count + 1
    return "line \(line), column \(column): \(message)"
  }

  /// The manifest as JSON, keys in documented order: a starting point for your own.
  public var json: JSONValue {
    var head: [(String, JSONValue)] = [
      ("cache", cache.map { .string($0) } ?? .string(Self.defaultCache)),
      ("device", .string(device.rawValue)),
      ("background", .string(ArgumentText.color(background))),
    ]
    if !plugins.isEmpty { head.append(("plugins", .array(plugins.map { .string($0) }))) }
    if let maxReaders { head.append(("maxReaders", .integer(maxReaders))) }
    return .object(
      head + [
        (
          "formats",
          .array(
            formats.map { format in
              .object([
                ("name", .string(format.name)), ("family", .string(format.family)),
                ("size", .string("\(format.width)x\(format.height)")),
                ("scale", .integer(format.scale)),
                ("style", .string(format.style.rawValue)),
                ("maximumCount", .integer(format.maximumCount)),
                ("devices", .array(format.devices.sorted().map { .string($0.rawValue) })),
                ("protection", .string(format.protectionMode.rawValue)),
                ("pipeline", .string(format.pipeline)),
              ])
            })
        )
      ])
  }
}

/// Colours as manifests write them.
enum ArgumentText {
  static func color(_ color: RGBA) -> String {
    let digits = [color.red, color.green, color.blue] + (color.alpha == 255 ? [] : [color.alpha])
    return "#" + digits.map { String(format: "%02x", $0) }.joined()
  }
}

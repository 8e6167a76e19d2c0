import Foundation
import ImageProcessing
import Vips

/// The plugin as imgtool loads it, and its face finder, from the library SwiftPM built
/// beside the tests (`swift build --build-tests` in Examples/FaceCrop).
enum FaceCropPlugin {
  static let path = URL(fileURLWithPath: CommandLine.arguments[0])
    .deletingLastPathComponent().appendingPathComponent("libFaceCrop.so").path

  /// One registry with the plugin loaded, for the tests that need no registry of their own.
  static let sharedRegistry: ProcessorRegistry = {
    do { return try registry() } catch { fatalError("\(error)") }
  }()

  /// A registry with the built-ins and the plugin's faceFill.
  static func registry() throws -> ProcessorRegistry {
    let registry = ProcessorRegistry.withBuiltIns()
    try PluginLoader.load(path: path, into: registry)
    return registry
  }

  typealias DetectFaces =
    @convention(c) (
      UnsafeMutableRawPointer?, UnsafeMutablePointer<Double>?, Int32, UnsafeMutablePointer<CChar>?,
      Int
    ) -> Int32

  /// The plugin's own detector (`facecrop_detect_faces`), run on any image: the faces'
  /// boxes in fractions of its size.
  static func faces(in image: VipsImage) throws -> [(
    x: Double, y: Double, width: Double, height: Double
  )] {
    guard let library = dlopen(path, RTLD_NOW | RTLD_LOCAL),
      let symbol = dlsym(library, "facecrop_detect_faces")
    else { throw PluginProblem("cannot load \(path): build it with swift build --build-tests") }
    let detect = unsafeBitCast(symbol, to: DetectFaces.self)
    var boxes = [Double](repeating: 0, count: 4 * 32)
    var error = [CChar](repeating: 0, count: 512)
    let count = image.withUnsafeVipsImagePointer { detect($0, &boxes, 32, &error, error.count) }
    guard count >= 0 else {
      throw PluginProblem(
        String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return (0..<Int(count)).map {
      (boxes[4 * $0], boxes[4 * $0 + 1], boxes[4 * $0 + 2], boxes[4 * $0 + 3])
    }
  }
}

extension FaceCropPlugin {
  typealias FaceWindow =
    @convention(c) (
      UnsafeMutableRawPointer?, Int32, Int32, Double, UnsafeMutablePointer<Int32>?,
      UnsafeMutablePointer<CChar>?, Int
    ) -> Int32

  /// faceFill's window in `image` for a `width` x `height` format
  /// (`facecrop_face_window`), in the image's pixels; nil when there is no face.
  static func window(in image: VipsImage, width: Int, height: Int, padding: Double = 0.2) throws
    -> (left: Int, top: Int, width: Int, height: Int)?
  {
    guard let library = dlopen(path, RTLD_NOW | RTLD_LOCAL),
      let symbol = dlsym(library, "facecrop_face_window")
    else { throw PluginProblem("cannot load \(path): build it with swift build --build-tests") }
    let find = unsafeBitCast(symbol, to: FaceWindow.self)
    var window = [Int32](repeating: 0, count: 4)
    var error = [CChar](repeating: 0, count: 512)
    let found = image.withUnsafeVipsImagePointer {
      find($0, Int32(width), Int32(height), padding, &window, &error, error.count)
    }
    guard found >= 0 else {
      throw PluginProblem(
        String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return found == 0 ? nil : (Int(window[0]), Int(window[1]), Int(window[2]), Int(window[3]))
  }
}

struct PluginProblem: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// The repository's sample photos, and photos made from them.
enum Photos {
  static let folder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Photos")

  /// Examples/, which holds the sample photos (Photos) and this package (FaceCrop).
  static var examples: URL { folder.deletingLastPathComponent() }

  /// A sample photo, decoded upright in sRGB as a fill decodes it, covering `box`.
  static func decoded(_ name: String, covering box: Int = 256) throws -> VipsImage {
    try SourceDecoder.decode(
      file: folder.appendingPathComponent(name).path, covering: [.init(width: box, height: box)])
  }

  /// `name` cut to a `size` square from its centre.
  static func square(_ name: String, _ size: Int) throws -> VipsImage {
    try VipsImage.thumbnail(
      file: folder.appendingPathComponent(name).path, width: size, height: size,
      options: ThumbnailOptions(crop: .centre)
    ).toSRGB().materialized()
  }

  /// Squares of `names` side by side, left to right: a wide photo whose only faces are
  /// the astronaut's, wherever "astronaut.png" stands.
  static func row(_ names: [String], size: Int = 512) throws -> VipsImage {
    try VipsImage.grid(names.map { try square($0, size) }, across: names.count).materialized()
  }
}

extension ProcessingContext {
  static func square(_ size: Int, memo: ProcessingMemo? = nil) -> ProcessingContext {
    ProcessingContext(
      formatName: "avatar", family: "avatar", pixelWidth: size, pixelHeight: size, memo: memo)
  }
}

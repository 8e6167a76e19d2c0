import Foundation
import ImageProcessing
import ImageTables
import IndependentDetector
import Testing
import Vips

/// faceFill's avatars of the sample photos (Examples/Photos and this package's Photos),
/// made as a render makes them: one decode per family, shrunk on load for its largest
/// format, its geometry in every format's context, one memo for the family.
@Suite("faceFill's avatars")
struct AvatarTests {
  /// Every sample photo.
  static let photos: [String] = ["Photos", "FaceCrop/Photos"].flatMap { folder in
    let url = Photos.examples.appendingPathComponent(folder)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
    return names.sorted().map { url.appendingPathComponent($0).path }
  }

  /// The photos with one face (the astronaut's): the plugin's, the independent
  /// detector's and a person's count agree on them.
  static let oneFace = [
    "astronaut.png", "astronaut-at-the-edge.jpg", "astronaut-beside-hubble-and-coffee.jpg",
  ]

  /// The family of imgtool.json here (32, 64 and 128 points at 2x) and two shapes
  /// that are not square, in pixels.
  static let sizes = [(64, 64), (128, 128), (256, 256), (200, 100), (400, 200), (100, 200)]

  /// The family's avatars of `path` for `spec` at every size, as `ImageCache.fill` makes
  /// them; a format that fails gives its error.
  static func family(_ path: String, spec: String, sizes: [(Int, Int)] = sizes) throws
    -> (decode: SourceDecoder.Decoded, avatars: [Result<VipsImage, ProcessingError>])
  {
    let pipeline = try FaceCropPlugin.sharedRegistry.pipeline(spec)
    let contexts = sizes.map { width, height in
      ProcessingContext(
        formatName: "avatar.\(width)x\(height)", family: "avatar", pixelWidth: width,
        pixelHeight: height, entityID: path)
    }
    let decoded = try SourceDecoder.decode(file: path, for: contexts.map { (pipeline, $0) })
    let memo = ProcessingMemo()
    let avatars = contexts.map { context in
      var processing = context
      processing.geometry = decoded.geometry
      processing.memo = memo
      return Result<VipsImage, ProcessingError>(catching: { () throws(ProcessingError) in
        try pipeline.process(decoded.image, context: processing)
      })
    }
    return (decoded, avatars)
  }

  @Test(arguments: ["faceFill", "faceFill | circle", "faceFill(fallback: centre)"])
  func everyFormatOfEveryPhotoIsMade(spec: String) throws {
    try #require(Self.photos.count == 8, "\(Self.photos)")
    for path in Self.photos {
      let (_, avatars) = try Self.family(path, spec: spec)
      for ((width, height), avatar) in zip(Self.sizes, avatars) {
        switch avatar {
        case .success(let image):
          #expect((image.width, image.height) == (width, height), "\(path) \(width)x\(height)")
        case .failure(let error):
          Issue.record("\(path), \(width)x\(height), \(spec): \(error)")
        }
      }
    }
  }

  /// In every avatar of a photo with one face, OpenCV's other frontal cascade finds that
  /// face, once: in the round avatars of imgtool.json's family, and in the rectangles
  /// of every shape (a circle of a rectangle is its centred square, which cuts a head).
  @Test(arguments: oneFace, ["faceFill | circle", "faceFill"])
  func theIndependentDetectorFindsTheFaceInEveryAvatar(name: String, spec: String) throws {
    let path = try #require(Self.photos.first { $0.hasSuffix("/" + name) })
    let sizes = spec.contains("circle") ? Self.sizes.filter { $0.0 == $0.1 } : Self.sizes
    let (_, avatars) = try Self.family(path, spec: spec, sizes: sizes)
    for ((width, height), avatar) in zip(sizes, avatars) {
      let faces = try IndependentFaces.in(try avatar.get())
      #expect(faces.count == 1, "\(name) \(width)x\(height): \(faces)")
    }
  }

  /// The avatar is the face window the plugin chose, of the format's shape to within a
  /// pixel's rounding, and covered without stretching: libvips cropping the same window
  /// out of the same decode and making its thumbnail gives the same pixels.
  @Test(arguments: oneFace + ["two-astronauts.jpg"])
  func theAvatarIsItsWindowUnstretched(name: String) throws {
    let path = try #require(Self.photos.first { $0.hasSuffix("/" + name) })
    let (decoded, avatars) = try Self.family(path, spec: "faceFill")
    for ((width, height), avatar) in zip(Self.sizes, avatars) {
      let image = try avatar.get()
      let window = try #require(
        try FaceCropPlugin.window(in: decoded.image, width: width, height: height),
        "\(name): the plugin finds the face")
      let aspect = (Double(window.width) / Double(window.height)) / (Double(width) / Double(height))
      #expect(abs(aspect - 1) < 0.02, "\(name) \(width)x\(height): window \(window)")
      let reference = try decoded.image.cropped(
        left: window.left, top: window.top, width: window.width, height: window.height
      ).thumbnail(width: width, height: height, crop: .centre)
      #expect(
        try largestDifference(image, reference) <= 1, "\(name) \(width)x\(height): \(window)")
    }
  }

  /// The window holds the whole head, hair and chin, with a margin, as far as the photo
  /// goes: the face the independent detector finds in the photo, and room above it for
  /// the hair and below it for the chin.
  @Test(arguments: oneFace + ["two-astronauts.jpg"])
  func theWindowHoldsTheWholeHead(name: String) throws {
    let path = try #require(Self.photos.first { $0.hasSuffix("/" + name) })
    let decoded = try SourceDecoder.decode(file: path, covering: [.init(width: 256, height: 256)])
    let faces = try IndependentFaces.in(decoded, minimumSide: 0)
    try #require(!faces.isEmpty, "\(name): the independent detector finds a face in the photo")
    let (photoWidth, photoHeight) = (Double(decoded.width), Double(decoded.height))
    for (width, height) in Self.sizes {
      let window = try #require(
        try FaceCropPlugin.window(in: decoded, width: width, height: height))
      let (left, top) = (Double(window.left) / photoWidth, Double(window.top) / photoHeight)
      let right = Double(window.left + window.width) / photoWidth
      let bottom = Double(window.top + window.height) / photoHeight
      // The face the window is on (of two too far apart for one window, one is kept).
      let face = try #require(
        faces.first {
          let (x, y) = ($0.x + $0.width / 2, $0.y + $0.height / 2)
          return x > left && x < right && y > top && y < bottom
        }, "\(name) \(width)x\(height): no face in the window \(window): \(faces)")
      let head = (
        left: max(0, face.x - 0.15 * face.width), top: max(0, face.y - 0.45 * face.height),
        right: min(1, face.x + 1.15 * face.width), bottom: min(1, face.y + 1.25 * face.height)
      )
      #expect(
        left <= head.left && top <= head.top && right >= head.right && bottom >= head.bottom,
        "\(name) \(width)x\(height): the window \(window) of \(decoded.width)x\(decoded.height) cuts the head \(head) of the face \(face)"
      )
      // Not the whole photo either, where the photo is larger than the head.
      if photoHeight > Double(height) * 2 {
        #expect(bottom - top < 0.95, "\(name) \(width)x\(height): \(window) is the whole photo")
      }
    }
  }
}

/// The largest difference of any sample between two images of the same size.
func largestDifference(_ image: VipsImage, _ reference: VipsImage) throws -> Int {
  try #require(
    (image.width, image.height, image.bands) == (reference.width, reference.height, reference.bands)
  )
  let (got, want) = (try image.writePixels(), try reference.writePixels())
  try #require(got.count == want.count)
  return zip(got, want).map { abs(Int($0) - Int($1)) }.max() ?? 0
}

/// OpenCV's `frontalface_default` cascade (IndependentDetector), not the plugin's.
enum IndependentFaces {
  static func `in`(_ image: VipsImage, minimumSide: Int = 256) throws -> [(
    x: Double, y: Double, width: Double, height: Double
  )] {
    var boxes = [Double](repeating: 0, count: 4 * 32)
    var error = [CChar](repeating: 0, count: 512)
    let count = image.withUnsafeVipsImagePointer {
      independent_detect_faces($0, Int32(minimumSide), &boxes, 32, &error, error.count)
    }
    guard count >= 0 else {
      throw PluginProblem(
        String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return (0..<Int(min(count, 32))).map {
      (boxes[4 * $0], boxes[4 * $0 + 1], boxes[4 * $0 + 2], boxes[4 * $0 + 3])
    }
  }
}

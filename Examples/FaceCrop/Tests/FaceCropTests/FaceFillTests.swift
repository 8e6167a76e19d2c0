import Foundation
import ImageProcessing
import Testing
import Vips

/// faceFill through imgtool's plugin host, on photos made from the repository's own: the
/// astronaut is the only face in them.
@Suite("faceFill")
struct FaceFillTests {
  /// rocket | coffee | astronaut: one face, in the right third of a 3:1 photo.
  static func faceAtTheRightEdge() throws -> VipsImage {
    try Photos.row(["rocket.jpg", "coffee.png", "astronaut.png"])
  }

  @Test func aFaceFarFromTheCentreIsInTheAvatarWhereTheCentreCropMissesIt() throws {
    let registry = try FaceCropPlugin.registry()
    let photo = try Self.faceAtTheRightEdge()
    let found = try FaceCropPlugin.faces(in: photo)
    try #require(found.count == 1, "the astronaut's face: \(found)")
    #expect(found[0].x > 2.0 / 3.0)

    let avatar = try registry.pipeline("faceFill").process(photo, context: .square(128))
    #expect((avatar.width, avatar.height) == (128, 128))
    let inAvatar = try FaceCropPlugin.faces(in: avatar)
    #expect(inAvatar.count == 1, "\(inAvatar)")
    // Zoomed on the head and its margin (about 2.7 face heights): the face is about two
    // fifths of the avatar, not half of it (the face and 40% more, hair and chin cut).
    if let face = inAvatar.first {
      #expect(face.width > 0.3 && face.width < 0.48, "\(face)")
      #expect(abs(face.x + face.width / 2 - 0.5) < 0.15, "centred: \(face)")
    }

    let centre = try registry.pipeline("fill(crop: centre)").process(photo, context: .square(128))
    #expect(try FaceCropPlugin.faces(in: centre).isEmpty)
  }

  @Test(arguments: ["rocket.jpg", "coffee.png", "chelsea.png", "hubble.jpg"])
  func withoutAFaceItIsExactlyTheFallback(photoName: String) throws {
    let registry = try FaceCropPlugin.registry()
    let photo = try Photos.decoded(photoName)
    try #require(try FaceCropPlugin.faces(in: photo).isEmpty)
    for crop in ["attention", "centre", "entropy"] {
      for (width, height) in [(128, 128), (200, 90)] {
        let context = ProcessingContext(
          formatName: "f", family: "f", pixelWidth: width, pixelHeight: height)
        let faceFill = try registry.pipeline("faceFill(fallback: \(crop))").process(
          photo, context: context)
        let fill = try registry.pipeline("fill(crop: \(crop))").process(photo, context: context)
        #expect(
          (faceFill.width, faceFill.height, faceFill.bands) == (fill.width, fill.height, fill.bands)
        )
        #expect(
          try faceFill.writePixels() == fill.writePixels(),
          "\(photoName), \(crop), \(width)x\(height)")
      }
    }
  }

  @Test func twoFacesSideBySideShareTheWindow() throws {
    let registry = try FaceCropPlugin.registry()
    let photo = try Photos.row(["astronaut.png", "astronaut.png"])
    try #require(try FaceCropPlugin.faces(in: photo).count == 2)
    let context = ProcessingContext(
      formatName: "banner", family: "banner", pixelWidth: 256, pixelHeight: 128)
    let banner = try registry.pipeline("faceFill").process(photo, context: context)
    let faces = try FaceCropPlugin.faces(in: banner)
    #expect(faces.count == 2, "\(faces)")
    #expect(
      faces.contains { $0.x + $0.width / 2 < 0.5 } && faces.contains { $0.x + $0.width / 2 > 0.5 })
  }

  @Test func facesTooFarApartForOneWindowKeepTheFirstLargest() throws {
    let registry = try FaceCropPlugin.registry()
    let photo = try Photos.row(["astronaut.png", "rocket.jpg", "coffee.png", "astronaut.png"])
    try #require(try FaceCropPlugin.faces(in: photo).count == 2)
    let avatar = try registry.pipeline("faceFill").process(photo, context: .square(128))
    // One whole face, in the middle, not the background between the two.
    let faces = try FaceCropPlugin.faces(in: avatar)
    #expect(faces.count == 1, "\(faces)")
    if let face = faces.first {
      #expect(abs(face.x + face.width / 2 - 0.5) < 0.15, "centred: \(face)")
    }
    let centre = try registry.pipeline("fill(crop: centre)").process(photo, context: .square(128))
    #expect(try FaceCropPlugin.faces(in: centre).isEmpty)
  }

  /// The faces a fill's memo holds are what every format of the fill uses: a photo
  /// without a face, filled with the memo of one with a face of the same size, is cut
  /// where that face was instead of falling back.
  @Test func theFacesAreFoundOncePerFillAndSharedThroughItsMemo() throws {
    let registry = try FaceCropPlugin.registry()
    let memo = ProcessingMemo()
    let withFace = try Self.faceAtTheRightEdge()
    let pipeline = try registry.pipeline("faceFill")
    for size in [64, 128] {
      _ = try pipeline.process(withFace, context: .square(size, memo: memo))
    }
    let noFace = try Photos.row(["coffee.png", "rocket.jpg", "hubble.jpg"])
    try #require(try FaceCropPlugin.faces(in: noFace).isEmpty)
    let fallback = try registry.pipeline("fill(crop: attention)").process(
      noFace, context: .square(128))
    let fresh = try pipeline.process(noFace, context: .square(128, memo: ProcessingMemo()))
    #expect(try fresh.writePixels() == fallback.writePixels())
    let shared = try pipeline.process(noFace, context: .square(128, memo: memo))
    // Cut where the memo's face is, by the window rule of FaceWindow.hpp, then filled
    // to the format's size as faceFill does.
    let key =
      "faceFill.faces:opencv-haar-alt2(scale: 1.1, neighbours: 4, minimum: 12, grey: 512 or 256 short):"
      + "\(withFace.width)x\(withFace.height)"
    let stored = try #require(memo.stored(key), "the memo holds the faces under \(key)")
    try #require(stored.count == 4, "one face: \(stored)")
    let window = Self.faceWindow(
      face: (stored[0], stored[1], stored[2], stored[3]), imageWidth: noFace.width,
      imageHeight: noFace.height, targetWidth: 128, targetHeight: 128, padding: 0.2)
    let expected = try registry.pipeline("fill(crop: centre)").process(
      try noFace.cropped(
        left: window.left, top: window.top, width: window.width, height: window.height),
      context: .square(128))
    #expect((shared.width, shared.height, shared.bands) == (128, 128, expected.bands))
    let (got, want) = (try shared.writePixels(), try expected.writePixels())
    try #require(got.count == want.count)
    let meanDifference =
      Double(zip(got, want).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(got.count)
    #expect(meanDifference < 1, "mean difference \(meanDifference) from the face window \(window)")
    #expect(got != (try fallback.writePixels()))
  }

  /// faceFill's window for one face (FaceWindow.hpp): the face's head (0.6 of the box
  /// above it for the hair, 0.35 below for the chin, 0.25 each side) grown by `padding`
  /// times its size on every side and kept to the photo, in the smallest window of the
  /// target's shape holding it, no smaller than the target nor larger than the photo,
  /// centred on it and moved inside the photo.
  static func faceWindow(
    face: (left: Double, top: Double, width: Double, height: Double), imageWidth: Int,
    imageHeight: Int, targetWidth: Int, targetHeight: Int, padding: Double
  ) -> (left: Int, top: Int, width: Int, height: Int) {
    let aspect = Double(targetWidth) / Double(targetHeight)
    let largestWidth = min(Double(imageWidth), Double(imageHeight) * aspect)
    let (boxWidth, boxHeight) = (face.width * Double(imageWidth), face.height * Double(imageHeight))
    let (headWidth, headHeight) = (boxWidth * 1.5, boxHeight * 1.95)
    let headLeft = face.left * Double(imageWidth) - 0.25 * boxWidth
    let headTop = face.top * Double(imageHeight) - 0.6 * boxHeight
    let grown = (
      left: max(0, headLeft - padding * headWidth), top: max(0, headTop - padding * headHeight),
      right: min(Double(imageWidth), headLeft + headWidth * (1 + padding)),
      bottom: min(Double(imageHeight), headTop + headHeight * (1 + padding))
    )
    let (grownWidth, grownHeight) = (grown.right - grown.left, grown.bottom - grown.top)
    let width = min(max(grownWidth, grownHeight * aspect, Double(targetWidth)), largestWidth)
    let windowWidth = min(max(Int(width.rounded()), 1), imageWidth)
    let windowHeight = min(max(Int((width / aspect).rounded()), 1), imageHeight)
    let centreX = (grown.left + grown.right) / 2
    let centreY = (grown.top + grown.bottom) / 2
    let left = min(
      max(Int((centreX - Double(windowWidth) / 2).rounded()), 0), imageWidth - windowWidth)
    let top = min(
      max(Int((centreY - Double(windowHeight) / 2).rounded()), 0), imageHeight - windowHeight)
    return (left, top, windowWidth, windowHeight)
  }

  @Test func manyFillsAtOnceGiveWhatOneAtATimeGives() throws {
    let registry = try FaceCropPlugin.registry()
    let photos = [
      try Self.faceAtTheRightEdge(), try Photos.row(["astronaut.png", "astronaut.png"]),
      try Photos.decoded("rocket.jpg"),
    ]
    let pipeline = try registry.pipeline("faceFill | circle")
    let serial = try photos.map {
      try pipeline.process($0, context: .square(96, memo: ProcessingMemo())).writePixels()
    }
    let results = Results(count: 12)
    DispatchQueue.concurrentPerform(iterations: 12) { index in
      results.set(
        index,
        try? pipeline.process(photos[index % 3], context: .square(96, memo: ProcessingMemo()))
          .writePixels())
    }
    for index in 0..<12 {
      #expect(results.get(index) == serial[index % 3], "fill \(index)")
    }
  }

  @Test func argumentsOutOfRangeAreRefusedByTheHost() throws {
    let registry = try FaceCropPlugin.registry()
    #expect(throws: PipelineError.self) { try registry.pipeline("faceFill(padding: 9)") }
    #expect(throws: PipelineError.self) { try registry.pipeline("faceFill(fallback: faces)") }
    #expect(
      registry.definition(named: "faceFill")?.signature
        == "faceFill(padding: number 0...4 = 0.2, fallback: attention | centre | entropy = attention)"
    )
  }
}

/// Results written by concurrent iterations, one slot each.
final class Results: @unchecked Sendable {
  // Safety of @unchecked Sendable: every access holds the lock.
  private let lock = NSLock()
  private var values: [[UInt8]?]
  init(count: Int) { values = Array(repeating: nil, count: count) }
  func set(_ index: Int, _ value: [UInt8]?) { lock.withLock { values[index] = value } }
  func get(_ index: Int) -> [UInt8]? { lock.withLock { values[index] } }
}

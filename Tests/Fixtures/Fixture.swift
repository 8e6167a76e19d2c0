import Foundation

/// One test image: a file kept in `Tests/Fixtures`, or one that ``Fixtures`` makes from a
/// kept photo with libvips the first time a test asks for it.
///
/// ```swift
/// for fixture in Fixture.photos {
///   let path = try fixture.path()  // kept, or made now (once per test process)
///   let original = fixture.original.map(Fixtures.photo)  // the kept photo it shows, upright
/// }
/// ```
public struct Fixture: Sendable, Hashable, CustomStringConvertible {
  /// A photo every decoder must read, or a file every reader must refuse.
  public enum Kind: Sendable, Hashable {
    case photo, bad
  }

  /// The file name, unique among all fixtures (`"coffee-cmyk.jpg"`).
  public let name: String
  public let kind: Kind
  /// For a made photo, the name of the kept photo whose picture it shows, upright and
  /// at the same size: the two differ only by what the new encoding loses. `nil` for
  /// kept photos, bad inputs, and pictures of their own (`one-pixel.png`, and the
  /// masked ones, whose transparent corners change the picture).
  public let original: String?
  /// What the file is, in a few words.
  public let about: String
  /// How it is made; `nil` when the file is kept in the repository.
  let recipe: Recipe?

  /// Whether it is made at test time rather than kept in the repository.
  public var isGenerated: Bool { recipe != nil }

  public var description: String { name }

  /// The file's path: in `Tests/Fixtures`, or in this test process's temporary folder
  /// once made (removed when the process ends).
  public func path() throws -> String {
    guard let recipe else {
      let folder = kind == .photo ? "photos" : "bad"
      return Fixtures.folder.appendingPathComponent("\(folder)/\(name)").path
    }
    return try FixtureGenerator.path(of: name, recipe: recipe)
  }

  init(_ name: String, _ kind: Kind, original: String? = nil, about: String, recipe: Recipe? = nil)
  {
    self.name = name
    self.kind = kind
    self.original = original
    self.about = about
    self.recipe = recipe
  }
}

extension Fixture {
  /// The photos kept in `Tests/Fixtures/photos`, all public domain or CC0 (see CREDITS.md).
  public static let kept: [Fixture] = [
    Fixture("astronaut.png", .photo, about: "512x512 PNG with ICC, a face"),
    Fixture("chelsea.png", .photo, about: "451x300 PNG with ICC, a cat's face"),
    Fixture("coffee.png", .photo, about: "600x400 PNG"),
    Fixture("hubble.jpg", .photo, about: "1000x872 JPEG with ICC and EXIF"),
    Fixture("retina.jpg", .photo, about: "1411x1411 JPEG"),
    Fixture("rocket.jpg", .photo, about: "640x427 JPEG with ICC"),
  ]

  /// The photos made from the kept ones at test time: other containers, colour spaces,
  /// depths, alpha, and all eight EXIF orientations.
  public static let generated: [Fixture] =
    [
      Fixture(
        "coffee-cmyk.jpg", .photo, original: "coffee.png",
        about: "CMYK JPEG without a profile (naive conversion)", recipe: .cmykJPEG),
      Fixture(
        "chelsea.gif", .photo, original: "chelsea.png", about: "GIF, a palette of 128 colours",
        recipe: .paletteGIF),
      Fixture(
        "hubble.tif", .photo, original: "hubble.jpg", about: "TIFF, LZW, with ICC",
        recipe: .tiffLZW),
      Fixture("coffee.webp", .photo, original: "coffee.png", about: "lossy WebP", recipe: .webp),
      Fixture(
        "chelsea.heic", .photo, original: "chelsea.png", about: "HEIF with HEVC (x265)",
        recipe: .heic),
      Fixture(
        "chelsea.avif", .photo, original: "chelsea.png", about: "AVIF (HEIF with AV1)",
        recipe: .avif),
      Fixture(
        "retina-progressive.jpg", .photo, original: "retina.jpg", about: "progressive JPEG",
        recipe: .progressiveJPEG),
      Fixture(
        "astronaut-16bit.png", .photo, original: "astronaut.png", about: "16 bits per channel",
        recipe: .sixteenBitPNG),
      Fixture(
        "retina-grey.jpg", .photo, original: "retina.jpg", about: "one-band greyscale JPEG",
        recipe: .greyJPEG),
      Fixture(
        "chelsea-grey-alpha.png", .photo, about: "two bands, grey and a rounded alpha mask",
        recipe: .greyAlphaPNG),
      Fixture(
        "chelsea-roundmask-alpha.png", .photo,
        about: "RGBA (chelsea.png), transparent outside a rounded mask", recipe: .roundMaskPNG),
      Fixture("one-pixel.png", .photo, about: "1x1 RGB (200, 100, 50)", recipe: .onePixelPNG),
    ]
    + (1...8).map { orientation in
      Fixture(
        "chelsea-exif\(orientation).jpg", .photo, original: "chelsea.png",
        about: "stored so that EXIF orientation \(orientation) shows it upright",
        recipe: .orientation(orientation))
    }

  /// Every photo, kept and made: what every decoder and every pipeline must handle.
  public static let photos: [Fixture] = kept + generated

  /// The eight EXIF orientations of `chelsea.png`, 1 to 8 in order.
  public static let orientations: [Fixture] = generated.filter {
    if case .orientation = $0.recipe { return true }
    return false
  }

  /// Files that must each give a clear error of their own, with nothing written.
  public static let badInputs: [Fixture] =
    [
      Fixture(
        "bomb-header-100000x100000.png", .bad,
        about: "a 1,251-byte PNG whose header claims 100000x100000 pixels"),
      Fixture(
        "gzip-then-bytes.svgz", .bad,
        about: "100 bytes: a gzipped SVG with 8 bytes after its stream; hangs libvips 8.14's sniff"),
      Fixture(
        "progressive-8000x8000-cut.jpg", .bad,
        about: "4,096 bytes: a progressive 4:4:4 JPEG of 8000x8000, cut in its first scan; "
          + "libjpeg takes 366 MiB for its coefficients before finding it cut"),
      Fixture("random-bytes.png", .bad, about: "4,096 random bytes"),
      Fixture("text.jpg", .bad, about: "a line of text"),
      Fixture(
        "truncated.jpg", .bad, about: "the first 60,000 bytes of hubble.jpg", recipe: .truncatedJPEG
      ),
      Fixture("zero-bytes.jpg", .bad, about: "empty"),
    ] + BadTIFF.all.map { Fixture($0.name, .bad, about: $0.about) }
    + BadHEIF.all.map { Fixture($0.name, .bad, about: $0.about) }

  /// Every fixture, photos then bad inputs.
  public static let all: [Fixture] = photos + badInputs

  /// The fixture with this file name.
  public static func named(_ name: String) -> Fixture? {
    all.first { $0.name == name }
  }
}

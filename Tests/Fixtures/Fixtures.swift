import Foundation

/// Where every test finds its images and its scratch folders: the one place to look.
///
/// ```swift
/// import TestFixtures
///
/// let rocket = Fixtures.photo("rocket.jpg")           // kept in Tests/Fixtures/photos
/// let cmyk = try Fixtures.path("coffee-cmyk.jpg")     // made with libvips on first use
/// for fixture in Fixture.photos { _ = try fixture.path() }  // every photo, kept and made
/// let folder = try Fixtures.temporaryFolder()         // removed when the tests end
/// ```
///
/// Nothing here reads outside the repository: a fresh clone runs every test.
/// `Tests/Fixtures/README.md` lists the files.
public enum Fixtures {
  /// `Tests/Fixtures` in this checkout.
  public static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

  /// The root of this checkout.
  public static let packageRoot = folder.deletingLastPathComponent().deletingLastPathComponent()

  /// The names of the photos kept in `Tests/Fixtures/photos`.
  public static let keptPhotoNames: [String] = Fixture.kept.map(\.name)

  /// The path of a photo kept in `Tests/Fixtures/photos` (see ``keptPhotoNames``).
  /// For a made one, use ``path(_:)``.
  public static func photo(_ name: String) -> String {
    precondition(keptPhotoNames.contains(name), "\(name) is not a kept photo; use Fixtures.path")
    return folder.appendingPathComponent("photos/\(name)").path
  }

  /// The path of any fixture by file name, kept or made (made once per test process).
  public static func path(_ name: String) throws -> String {
    guard let fixture = Fixture.named(name) else { throw FixtureError.unknown(name) }
    return try fixture.path()
  }

  /// The bytes of any fixture by file name.
  public static func bytes(_ name: String) throws -> [UInt8] {
    try [UInt8](Data(contentsOf: URL(fileURLWithPath: path(name))))
  }

  /// A new empty folder for one test's files, inside this process's scratch folder,
  /// which is removed when the test process exits.
  public static func temporaryFolder() throws -> URL {
    try ScratchFolder.makeFolder()
  }
}

/// Why a fixture could not be had.
public enum FixtureError: Error, CustomStringConvertible {
  case unknown(String)
  case generationFailed(name: String, reason: String)

  public var description: String {
    switch self {
    case .unknown(let name):
      "no fixture is named '\(name)'; Tests/Fixtures/README.md lists them"
    case .generationFailed(let name, let reason):
      "could not make the fixture \(name): \(reason)"
    }
  }
}

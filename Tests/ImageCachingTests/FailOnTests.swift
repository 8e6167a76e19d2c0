import Foundation
import ImageProcessing
import ImageTables
import TestFixtures
import Testing
import Vips

@testable import ImageCaching

/// `CacheConfiguration.failOn` reaches every fill's decode.
@Suite("Cache failOn")
struct CacheFailOnTests {
  static func cache(_ failOn: FailOn) throws -> ImageCache {
    try ImageCache(
      configuration: CacheConfiguration(
        directory: Photos.temporaryFolder(), formats: testFormats(), failOn: failOn))
  }

  static func photo(_ path: String) -> Entity {
    Entity(id: (path as NSString).lastPathComponent, sourceVersion: "1", source: .file(path))
  }

  /// The default fills from a JPEG missing only its EOI marker, to the same entries as
  /// the whole file's, byte for byte.
  @Test func theDefaultFillsFromAJPEGMissingOnlyItsEndMarker() async throws {
    let path = try Generated.jpegWithoutEndMarker(in: Photos.temporaryFolder())
    let cache = try Self.cache(.truncated)
    let fromCut = try await cache.image(for: Self.photo(path), format: "avatar.large")
    let fromWhole = try await cache.image(for: entity("hubble.jpg"), format: "avatar.large")
    #expect(fromCut.width == 128 && fromCut.height == 128)
    #expect(fromCut.bytes.elementsEqual(fromWhole.bytes))
  }

  @Test func theDefaultRefusesAJPEGCutMidScanAndNoneFillsFromIt() async throws {
    let path = try Generated.truncatedJPEG(in: Photos.temporaryFolder())
    do {
      _ = try await Self.cache(.truncated).image(for: Self.photo(path), format: "avatar.large")
      Issue.record("a JPEG cut mid-scan filled")
    } catch let error as CacheError {
      guard case .source("truncated.jpg", path, .truncated(path, _)) = error else {
        Issue.record("\(error)")
        return
      }
    }
    let cache = try Self.cache(.none)
    let bitmap = try await cache.image(for: Self.photo(path), format: "avatar.large")
    #expect(bitmap.width == 128 && bitmap.height == 128)
    #expect(cache.statistics.failures == 0)
  }
}

import Foundation
import TestFixtures
import Testing

@testable import Vips

@Suite("Concurrency")
struct ConcurrencyTests {
  static let photos = ["astronaut.png", "chelsea.png", "coffee.png", "hubble.jpg", "rocket.jpg"]

  private static func render(_ name: String) throws -> [UInt8] {
    let thumb = try VipsImage.thumbnail(
      file: Fixtures.photo(name), width: 72, height: 72, options: .init(crop: .attention))
    let disc = try VipsImage.roundedRectangleMask(width: 72, height: 72, radius: 36)
    return try thumb.toSRGB().masked(by: disc).writePixels()
  }

  @Test func manyTasksGiveTheSameBytesAsOneAtATime() async throws {
    var expected: [String: [UInt8]] = [:]
    for name in Self.photos { expected[name] = try Self.render(name) }
    let jobs = (0..<60).map { Self.photos[$0 % Self.photos.count] }
    let results = try await withThrowingTaskGroup(of: (String, [UInt8]).self) { group in
      for name in jobs { group.addTask { (name, try Self.render(name)) } }
      return try await group.reduce(into: [(String, [UInt8])]()) { $0.append($1) }
    }
    #expect(results.count == jobs.count)
    for (name, bytes) in results { #expect(bytes == expected[name], "\(name) differs") }
  }

  @Test func startIsSafeFromManyThreads() async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<32 { group.addTask { try Vips.start() } }
      try await group.waitForAll()
    }
    #expect(Vips.version.hasPrefix("8."))
  }
}

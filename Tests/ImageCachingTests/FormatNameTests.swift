import Foundation
import ImageTables
import Testing

@testable import ImageCaching

@Suite("Format names across devices")
struct FormatNameTests {
  @Test func aNameIsUniqueAcrossEveryDeviceNotOnlyTheOnesKept() throws {
    let phone = try ImageFormat(name: "screen", width: 320, height: 480, devices: [.phone])
    let desktop = try ImageFormat(name: "screen", width: 1280, height: 800, devices: [.desktop])
    for device in [DeviceClass.phone, .desktop, .server] {
      let folder = try Photos.temporaryFolder()
      #expect(throws: CacheError.duplicateFormat("screen"), "\(device)") {
        try ImageCache(
          configuration: .init(directory: folder, formats: [phone, desktop], device: device))
      }
      // Refused before any table is made.
      let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
      #expect(files.filter { $0.hasSuffix(".table") }.isEmpty, "\(files)")
    }
    #expect(
      CacheError.duplicateFormat("screen").description
        == "two formats are named 'screen': rename one (names are unique whichever devices each is for)"
    )
  }

  @Test func aFormatWithNoFamilyIsAFamilyOfItsOwn() async throws {
    let banner = try ImageFormat(name: "banner", width: 40, height: 20, style: .bgr32)
    let cache = try ImageCache(
      configuration: .init(directory: try Photos.temporaryFolder(), formats: [banner]))
    #expect(cache.formatNames(family: "banner") == ["banner"])
    let image = try await cache.image(for: entity("coffee.png"), format: "banner")
    #expect((image.width, image.height) == (30, 20))
  }
}

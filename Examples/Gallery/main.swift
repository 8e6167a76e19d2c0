// The gallery example: renders the sample photos into the photo family, then drives a
// photo browser and a thumbnail scrubber over them from code and writes one frame per
// photo, as a front end would draw them.
//
//   swift run Gallery [PHOTOS_FOLDER] [OUTPUT_FOLDER]
//
// Defaults: Examples/Photos, and .build/gallery-frames/ (SwiftPM's build folder, which
// git ignores), so that a run never writes into the repository itself.

import Foundation
import ImageCaching
import ImageTables
// The frame drawing (BrowserFrame, CacheThumbnails) is imgtool's `browse`; the formats
// come from the manifest module alone.
import ImageToolCLI
import ImageToolManifest
import PhotoModels

let arguments = CommandLine.arguments.dropFirst()
let photosFolder = arguments.first ?? "Examples/Photos"
let outputFolder = URL(fileURLWithPath: arguments.dropFirst().first ?? ".build/gallery-frames")
let cacheFolder = FileManager.default.temporaryDirectory
  .appendingPathComponent("imagetool-gallery-\(ProcessInfo.processInfo.processIdentifier)")
defer { try? FileManager.default.removeItem(at: cacheFolder) }

// 1. The photo family of the built-in manifest: a thumbnail and a screen-sized fit.
let formats = Manifest.builtIn.formats(family: "photo")
let cache = try ImageCache(configuration: .init(directory: cacheFolder, formats: formats))

// 2. One entity per photo; each is decoded once for both formats.
let names = try FileManager.default.contentsOfDirectory(atPath: photosFolder)
  .filter { ["jpg", "jpeg", "png", "webp"].contains(($0 as NSString).pathExtension.lowercased()) }
  .sorted()
let entities = names.map { name in
  Entity(id: name, sourceVersion: "1", source: .file(photosFolder + "/" + name))
}
await cache.prefetch(entities, family: "photo").value

// 3. The browser and the scrubber, headless, over the cache; one frame per photo.
try FileManager.default.createDirectory(at: outputFolder, withIntermediateDirectories: true)
try await MainActor.run {
  let photos = entities.map {
    CachedPhoto(cache: cache, entity: $0, format: "photo.screen", caption: $0.id)
  }
  let browser = PhotoBrowser(photos: photos)
  let thumbnails = CacheThumbnails(cache: cache, entities: entities, format: "photo.thumb")
  let scrubber = PhotoScrubber(dataSource: thumbnails)
  scrubber.bounds = (640, BrowserFrame.scrubberHeight)
  scrubber.reloadData()
  browser.show()
  for index in 0..<browser.numberOfPhotos {
    browser.jump(to: index)
    scrubber.setSelectedPhotoIndex(index)
    let frame = try BrowserFrame.draw(
      browser: browser, scrubber: scrubber, width: 640, pageHeight: 480)
    let path = outputFolder.appendingPathComponent(String(format: "frame-%02d.png", index)).path
    try frame.write(to: path)
    print("\(path): \(browser.counterText ?? "1 of 1"), \(browser.caption ?? "")")
  }
}

import Foundation
import ImageCaching
import ImageTables
import PhotoModels

/// `imgtool browse --family photo --out frame.png`: one frame of a photo browser and
/// its scrubber over the entries of a rendered family.
public struct BrowseCommand: Command {
  public init() {}

  public let spec = CommandSpec(
    name: "browse",
    abstract: "Draw one frame of a photo browser and scrubber over a rendered family.",
    discussion: """
      Builds a browser and a scrubber (headless models of IDMPhotoBrowser and Nimbus's \
      scrubber) over the entries of the family's largest format, in entity order, and \
      draws what they show: the current photo from that format, its caption (the entity \
      id) and counter, and the scrubber strip beneath with thumbnails from the family's \
      smallest format and the selection larger. Render the family first. With --from, \
      the selection moves from that photo to --index as the scrubber animates it (0.2 s, \
      ease-out), and the frame shows it --elapsed seconds in. With --url, the photos are       those URLs instead (each entity's id the URL), loaded through the cache like any       photo from the web: the frame is drawn once the current photo has loaded, or, with       --at-progress, as soon as its download has come that far, its progress bar showing.
      """,
    options: [
      .init("family", value: "name", help: "The rendered family (default photo)."),
      .init("index", value: "n", help: "The photo shown, from 0 (default 0)."),
      .init("width", value: "points", help: "The view's width (default 768)."),
      .init("from", value: "n", help: "The photo selected before; animates from it."),
      .init(
        "elapsed", value: "seconds",
        help: "How far into the selection's animation to draw (default its end, 0.2)."),
      .init(
        "out", value: "file", help: "The picture to write (.png, .jpg or .webp).", required: true),
      .init(
        "url", value: "url", help: "A photo from the web (http or https) to browse; repeats.",
        repeats: true),
      .init(
        "at-progress", value: "fraction",
        help: "With --url: draw while the current photo loads, once this much (0 to 1) came."),
    ] + CacheOptions.specs
  )

  public func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> Int32 {
    guard let output = arguments.value("out") else {
      throw CommandLineError.missingOption(option: "--out", valueName: "file")
    }
    let family = arguments.value("family") ?? "photo"
    let width = try arguments.integer("width", in: 160...4096, default: 768)
    let index = try arguments.integer("index", in: 0...Int(Int32.max), default: 0)
    let previous = try arguments.value("from").map { _ in
      try arguments.integer("from", in: 0...Int(Int32.max), default: 0)
    }
    let elapsed = try Self.seconds(arguments.value("elapsed"))
    let urls = try arguments.allValues("url").map { text throws(CommandLineError) in
      guard let url = URLList.webURL(text) else {
        throw .invalidValue(option: "--url", value: text, reason: "expected an http or https URL")
      }
      return url
    }
    let atProgress = try Self.fraction(arguments.value("at-progress"), urls: urls)
    try OutputFile.check(output, option: "--out")
    // Only reads: the family's tables open read-only, with no lock, so a browse works on
    // a read-only cache and beside a render.
    let manifest = try CacheOptions.manifest(arguments)
    let directory = CacheOptions.directory(arguments, manifest: manifest)
    let familyFormats = manifest.formats(family: family)
    guard !familyFormats.isEmpty else {
      throw CommandLineError.invalidValue(
        option: "--family", value: family,
        reason: "\(manifest.origin) has the families: \(manifest.families.joined(separator: ", "))")
    }
    for format in familyFormats
    where urls.isEmpty && format.isKept(for: manifest.device)
      && !FileManager.default.fileExists(
        atPath: ImageTable.paths(formatName: format.name, directory: directory).table)
    {
      context.console.err(
        "imgtool: family '\(family)' is not rendered in \(directory.path) (no table for "
          + "'\(format.name)'); run 'imgtool render --family \(family)' first")
      return ExitCode.failure
    }
    // URL photos are filled as they load: then the tables open for writing.
    let (_, cache) = try CacheOptions.open(
      arguments, context: context, family: family, readOnly: urls.isEmpty)
    let formats = cache.formatNames(family: family).compactMap { cache.formats[$0] }
      .sorted { $0.pixelWidth * $0.pixelHeight < $1.pixelWidth * $1.pixelHeight }
    guard let thumb = formats.first, let screen = formats.last,
      let table = cache.table(format: screen.name)
    else {
      throw CommandLineError.invalidValue(
        option: "--family", value: family, reason: "no such family")
    }
    let entities =
      urls.isEmpty
      ? table.entries().map {
        Entity(id: $0.entityID, sourceVersion: $0.sourceVersion, source: .file($0.entityID))
      }.sorted { $0.id < $1.id }
      : urls.map {
        // The version an entry of the URL has (`imgtool render` stores the server's), as
        // a URL photo takes it, so a rendered URL is a hit with no request.
        Entity(
          id: $0.absoluteString,
          sourceVersion: table.sourceVersion(entityID: $0.absoluteString)
            ?? CachedPhoto.defaultURLVersion, source: .url($0))
      }
    guard !entities.isEmpty else {
      context.console.err("imgtool: family '\(family)' holds no photos; render it first")
      return ExitCode.failure
    }
    for (option, value) in [("--index", index), ("--from", previous)] {
      guard let value, value >= entities.count else { continue }
      throw CommandLineError.invalidValue(
        option: option, value: String(value),
        reason:
          "family '\(family)' holds \(entities.count) photo\(entities.count == 1 ? "" : "s"), "
          + "so the index is from 0 to \(entities.count - 1)")
    }
    let photos = await MainActor.run {
      entities.map { CachedPhoto(cache: cache, entity: $0, format: screen.name, caption: $0.id) }
    }
    let browser = await PhotoBrowser(photos: photos, initialIndex: index)
    let events = await browser.events()
    await browser.show()
    if !urls.isEmpty {
      if let failure = await Self.waitForTheCurrentPhoto(browser, events: events, at: atProgress) {
        context.console.err("imgtool: \(entities[index].id) did not load: \(failure)")
        return ExitCode.failure
      }
    }
    let drawn = try await MainActor.run { () throws -> (Int, Int, String, String) in
      let thumbnails = CacheThumbnails(cache: cache, entities: entities, format: thumb.name)
      let scrubber = PhotoScrubber(dataSource: thumbnails)
      scrubber.bounds = (width, BrowserFrame.scrubberHeight)
      scrubber.reloadData()
      scrubber.setSelectedPhotoIndex(previous)
      let animation = scrubber.setSelectedPhotoIndex(browser.currentIndex, animated: true)
      let moment = animation.map { animation in
        let seconds = min(elapsed ?? animation.duration, animation.duration)
        return BrowserFrame.SelectionMoment(animation: animation, elapsed: seconds)
      }
      let frame = try BrowserFrame.draw(
        browser: browser, scrubber: scrubber, width: width, pageHeight: width * 3 / 4,
        selectionAt: moment)
      try frame.write(to: output)
      var motion = ""
      if let moment, let previous {
        motion =
          ", selection moving from photo \(previous + 1): "
          + "\(moment.elapsed) s of \(moment.animation.duration) s, at x \(moment.frame.x)"
      }
      if let progress = browser.currentProgress {
        motion += ", loading: \(progress) of it downloaded"
      }
      return (frame.width, frame.height, entities[browser.currentIndex].id, motion)
    }
    if !urls.isEmpty {
      // A download drawn mid-way stops here; nothing half-written stays.
      for photo in photos { photo.unloadUnderlyingImage() }
      await cache.waitForFills()
    }
    context.console.out(
      "\(output): \(drawn.0)x\(drawn.1), photo \(index + 1) of "
        + "\(entities.count) (\(drawn.2))\(drawn.3)")
    return ExitCode.success
  }

  /// Returns once the current photo has loaded (nil), failed (its error), or, with
  /// `fraction`, reported at least that much progress while loading (nil).
  @MainActor
  static func waitForTheCurrentPhoto(
    _ browser: PhotoBrowser, events: AsyncStream<PhotoBrowserEvent>, at fraction: Double?
  ) async -> String? {
    guard browser.currentPhoto?.underlyingImage == nil else { return nil }
    let current = browser.currentIndex
    for await event in events {
      switch event {
      case .progress(current, let loaded) where fraction.map({ loaded >= $0 }) == true:
        return nil
      case .loadingDidEnd(current): return nil
      case .loadFailed(current, let error): return error
      default: continue
      }
    }
    return nil
  }

  /// `--at-progress` as a fraction from 0 to 1, for URL photos only (none given: nil).
  static func fraction(_ text: String?, urls: [URL]) throws(CommandLineError) -> Double? {
    guard let text else { return nil }
    guard let fraction = Double(text), (0...1).contains(fraction) else {
      throw .invalidValue(
        option: "--at-progress", value: text, reason: "expected a fraction from 0 to 1, such as 0.5"
      )
    }
    guard !urls.isEmpty else {
      throw .invalidValue(
        option: "--at-progress", value: text,
        reason: "only photos from --url load while browsing; give --url")
    }
    return fraction
  }

  /// `--elapsed` as seconds from 0 (none given: nil).
  static func seconds(_ text: String?) throws(CommandLineError) -> Double? {
    guard let text else { return nil }
    guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
      throw .invalidValue(
        option: "--elapsed", value: text, reason: "expected seconds from 0, such as 0.05")
    }
    return seconds
  }
}

/// A scrubber's thumbnails, straight from a cache format: hits or nothing, never a load.
@MainActor
public final class CacheThumbnails: PhotoScrubberDataSource {
  let cache: ImageCache
  let entities: [Entity]
  let format: String

  public init(cache: ImageCache, entities: [Entity], format: String) {
    self.cache = cache
    self.entities = entities
    self.format = format
  }

  public func numberOfPhotos(in scrubber: PhotoScrubber) -> Int { entities.count }

  public func thumbnail(at index: Int, in scrubber: PhotoScrubber) -> Bitmap? {
    entities.indices.contains(index) ? cache.cachedImage(for: entities[index], format: format) : nil
  }
}

import Foundation
import ImageProcessing
import ImageTables
import Vips

/// A photo in a file, decoded on load to a given size through a pipeline (no cache).
public final class FilePhoto: Photo {
  public let path: String
  public let caption: String?
  public let placeholderImage: Bitmap?
  private let context: ProcessingContext
  private let pipeline: Pipeline
  let loading = PhotoLoading()

  /// - Parameters:
  ///   - width, height: the size to draw at, in pixels.
  ///   - pipeline: how to draw, for example `fit` (the default) or `fill | circle`.
  public init(
    path: String, width: Int, height: Int, style: PixelStyle = .bgra32,
    pipeline: Pipeline? = nil, caption: String? = nil, placeholder: Bitmap? = nil
  ) {
    self.path = path
    self.caption = caption
    self.placeholderImage = placeholder
    self.pipeline = pipeline ?? Pipeline(spec: "fit", processors: [ImageProcessors.Fit()])
    context = ProcessingContext(
      formatName: "photo", family: "photo", pixelWidth: width, pixelHeight: height, style: style,
      entityID: path)
  }

  public var underlyingImage: Bitmap? { loading.image }
  public var loadProgress: Double { loading.progress }
  public var isLoading: Bool { loading.isLoading }

  public func loadUnderlyingImage() {
    let (path, context, pipeline) = (path, context, pipeline)
    loading.load(owner: self) {
      let source = try SourceDecoder.decode(file: path, for: [(pipeline, context)])
      var context = context
      context.geometry = source.geometry
      let raster = try Rasterizer.prepare(
        pipeline.process(source.image, context: context), style: context.style,
        background: context.background, slotWidth: context.pixelWidth,
        slotHeight: context.pixelHeight)
      return Bitmap(
        width: raster.width, height: raster.height, style: raster.style, entityID: path
      ) { raster.draw(into: $0) }
    }
  }

  public func unloadUnderlyingImage() { loading.unload(owner: self) }
  public func events() -> AsyncStream<PhotoEvent> { loading.events() }
}

/// A video: a placeholder and a caption, no image to load.
public final class VideoPhoto: Photo {
  public let url: URL
  public let caption: String?
  public let placeholderImage: Bitmap?
  let loading = PhotoLoading()

  public init(url: URL, placeholder: Bitmap? = nil, caption: String? = nil) {
    self.url = url
    self.placeholderImage = placeholder
    self.caption = caption
  }

  public var videoURL: URL? { url }
  public var underlyingImage: Bitmap? { nil }
  public var loadProgress: Double { 0 }
  public var isLoading: Bool { false }

  /// Ends at once, unsuccessfully: a video has no underlying image.
  public func loadUnderlyingImage() {
    let url = url
    loading.load(owner: self) { throw PhotoError.video(url) }
  }

  public func unloadUnderlyingImage() { loading.unload(owner: self) }
  public func events() -> AsyncStream<PhotoEvent> { loading.events() }
}

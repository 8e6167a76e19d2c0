import Foundation
import Vips

/// Decodes a source once, with shrink-on-load only (never a resample), upright and in
/// 8-bit sRGB, and says where its pixels sit in the photo (``SourceGeometry``): every
/// pipeline of a family then resamples once from it, with geometry in the photo's
/// coordinates.
///
/// An RGB photo's embedded ICC profile is applied after each format's resample, to its
/// few pixels, when every pipeline resamples first (``Pipeline/resamplesFirst(photoWidth:photoHeight:context:)``),
/// as thumbnail applies an export profile after its resize; otherwise here, once.
public enum SourceDecoder {
  /// A pixel box a format needs.
  public struct Box: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
      self.width = width
      self.height = height
    }
  }

  /// A decode and the photo it shows. Run a pipeline on ``image`` with ``geometry`` in
  /// its context, so that sizes and crops are computed in the photo's coordinates, not
  /// the decode's (which may be shrunk on load):
  ///
  /// <!-- snippet context: let pipeline = try ProcessorRegistry.withBuiltIns().pipeline("fill") -->
  /// <!-- snippet context: import ImageTables -->
  /// <!-- snippet context: let avatar = try ImageFormat(name: "avatar", width: 64, height: 64) -->
  /// <!-- snippet context: let context = ProcessingContext(format: avatar, entityID: "ada.jpg") -->
  /// ```swift
  /// let decoded = try SourceDecoder.decode(file: "ada.jpg", for: [(pipeline, context)])
  /// var processing = context
  /// processing.geometry = decoded.geometry
  /// let entry = try pipeline.process(decoded.image, context: processing)
  /// ```
  public struct Decoded: Sendable {
    /// The pixels: the whole photo, shrunk on load by an integer factor (or not at all).
    public let image: VipsImage
    /// The photo's size as displayed; the region is the whole photo.
    public let geometry: SourceGeometry
  }

  /// A pipeline and the context it will run in: what a decode must serve.
  public typealias Consumer = (pipeline: Pipeline, context: ProcessingContext)

  /// Decodes bytes once for every consumer: the loader shrinks only as much as the
  /// consumer that shrinks least allows (libvips thumbnail's shrink-on-load rule).
  public static func decode(
    bytes: [UInt8], name: String, for consumers: [Consumer], limits: ImageLimits = .standard,
    failOn: FailOn = .truncated
  ) throws(VipsError) -> Decoded {
    let (image, header, factor) = try VipsImage.decode(
      bytes: bytes, name: name, limits: limits, failOn: failOn,
      keepingICCProfile: { header in
        !consumers.isEmpty
          && consumers.allSatisfy {
            $0.pipeline.resamplesFirst(
              photoWidth: header.displayWidth, photoHeight: header.displayHeight,
              context: $0.context)
          }
      }
    ) { header in
      consumers.map {
        $0.pipeline.decodeShrink(
          photoWidth: header.displayWidth, photoHeight: header.displayHeight, context: $0.context)
      }.min() ?? 1
    }
    return Decoded(
      image: image,
      geometry: SourceGeometry(
        photoWidth: header.displayWidth, photoHeight: header.displayHeight,
        imageScale: 1 / Double(factor)))
  }

  /// Decodes a file once for every consumer; see ``decode(bytes:name:for:limits:)``.
  public static func decode(
    file path: String, for consumers: [Consumer], limits: ImageLimits = .standard,
    failOn: FailOn = .truncated
  )
    throws(VipsError) -> Decoded
  {
    try decode(bytes: read(path), name: path, for: consumers, limits: limits, failOn: failOn)
  }

  /// Decodes the file once, upright, shrunk on load no further than every box allows
  /// (each box covered). The result is the decode alone: to run pipelines on it with
  /// the photo's geometry, use ``decode(file:for:limits:)``.
  public static func decode(
    file path: String, covering boxes: [Box], limits: ImageLimits = .standard
  ) throws(VipsError) -> VipsImage {
    try decode(bytes: read(path), name: path, covering: boxes, limits: limits)
  }

  /// Decodes bytes once, upright, covering every box; see ``decode(file:covering:limits:)``.
  public static func decode(
    bytes: [UInt8], name: String, covering boxes: [Box], limits: ImageLimits = .standard
  ) throws(VipsError) -> VipsImage {
    try VipsImage.decode(bytes: bytes, name: name, limits: limits) { header in
      boxes.map {
        ThumbnailGeometry(
          width: header.displayWidth, height: header.displayHeight, box: ($0.width, $0.height),
          covers: true
        ).commonShrink
      }.min() ?? 1
    }.image
  }

  /// The file's bytes; a missing or unreadable file gets the same errors libvips's
  /// own file checks give.
  static func read(_ path: String) throws(VipsError) -> [UInt8] {
    try FileBytes.read(path)
  }
}

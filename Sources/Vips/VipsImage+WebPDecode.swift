import CVips
import CVipsShim

extension VipsImage {
  /// The still WebP in `storage` decoded by libwebp straight into memory, scaled on load
  /// by `factor`: the pixels and metadata libvips's `webpload` gives for the same bytes
  /// and `scale`, without its loader around the decode (`WebPDecode.c` says what that
  /// saves, and how the two are kept the same).
  ///
  /// `probe` is libvips's header of the same bytes; the result takes its metadata (ICC
  /// profile, EXIF, XMP).
  ///
  /// Nil for an animation, or when libwebp fails: the caller then loads with libvips,
  /// whose messages alone judge a damaged file. Throws when this thread's time limit
  /// (``Vips/withTimeLimit(_:source:timedOut:_:)``) had passed before or after the decode.
  static func decodedByLibwebp(
    _ storage: ByteBuffer, like probe: VipsImage, shrunkBy factor: Int, source: String
  ) throws(VipsError) -> VipsImage? {
    try decoded(by: "WebP", like: probe, source: source) { out in
      cvips_webp_decode_like(probe.pointer, storage.start, storage.count, Int32(factor), out)
    }
  }
}

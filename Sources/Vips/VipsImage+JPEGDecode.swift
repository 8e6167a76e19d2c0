import CVips
import CVipsShim

extension VipsImage {
  /// The JPEG in `storage` decoded by libjpeg-turbo straight into memory, shrunk on load
  /// by `factor`: the pixels and metadata libvips's `jpegload` gives for the same bytes
  /// and shrink, without its loader around the decode (`JPEGDecode.c` says what that
  /// saves, and how the two are kept the same).
  ///
  /// `probe` is libvips's header of the same bytes; the result takes its metadata (ICC
  /// profile, EXIF, orientation, interpretation).
  ///
  /// Nil when libjpeg raises any warning or error, or the file is not one this path
  /// takes: the caller then loads with libvips, whose fail-on levels and messages alone
  /// judge a damaged file. Throws when this thread's time limit
  /// (``Vips/withTimeLimit(_:source:timedOut:_:)``) passed during the decode.
  static func decodedByLibjpeg(
    _ storage: ByteBuffer, like probe: VipsImage, shrunkBy factor: Int, source: String
  ) throws(VipsError) -> VipsImage? {
    try decoded(by: "JPEG", like: probe, source: source) { out in
      cvips_jpeg_decode_like(probe.pointer, storage.start, storage.count, Int32(factor), out)
    }
  }
}

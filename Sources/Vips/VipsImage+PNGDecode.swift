import CVips
import CVipsShim

extension VipsImage {
  /// The PNG in `storage` decoded by libpng straight into memory: the pixels and metadata
  /// libvips's `pngload` gives for the same bytes, without its loader around the decode
  /// (`PNGDecode.c` says what that saves, and how the two are kept the same).
  ///
  /// `probe` is libvips's header of the same bytes; the result takes its metadata (ICC
  /// profile, text chunks, EXIF, interpretation).
  ///
  /// Nil when libpng raises any warning or error, or the file is not one this path takes:
  /// the caller then loads with libvips, whose fail-on levels and messages alone judge a
  /// damaged file. Throws when this thread's time limit
  /// (``Vips/withTimeLimit(_:source:timedOut:_:)``) passed during the decode.
  static func decodedByLibpng(_ storage: ByteBuffer, like probe: VipsImage, source: String)
    throws(VipsError) -> VipsImage?
  {
    try decoded(by: "PNG", like: probe, source: source) { out in
      cvips_png_decode_like(probe.pointer, storage.start, storage.count, out)
    }
  }
}

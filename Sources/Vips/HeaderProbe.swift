/// What the first bytes of an image that is still arriving show: not enough yet, or its
/// header, read by the trusted loader that recognises the bytes (never by what a server
/// or a file name claims they are).
///
/// A download checks it as bytes come in, to refuse a non-image or an image over its
/// ``ImageLimits`` before the rest of the body is sent.
///
/// <!-- snippet context: let firstBytes: [UInt8] = [] -->
/// ```swift
/// switch try HeaderProbe.probe(firstBytes, name: "http://host/a.jpg") {
/// case .needMore: break  // wait for the next chunk
/// case .header(let header): try ImageLimits.standard.check(header, source: "http://host/a.jpg")
/// }
/// ```
public enum HeaderProbe: Sendable, Equatable {
  /// The bytes so far may be the start of an image whose header has not all arrived.
  case needMore
  /// The header is complete: what it says, nothing decoded.
  case header(ImageHeader)

  /// How many bytes a loader's signature needs at most: fewer that no loader recognises
  /// may still become an image.
  public static let signatureBytes = 64

  /// The longest a probe may take: reading a header takes milliseconds, and a download
  /// waits on it (``probe(_:name:timeLimit:)``).
  public static let timeLimit: Duration = .seconds(10)

  /// Probes `prefix`, the first bytes of an image (or all of them).
  ///
  /// Throws ``VipsError/notAnImage(source:)`` when at least ``signatureBytes`` bytes are
  /// there and no loader recognises them, and ``VipsError/blockedLoader(source:loader:format:)``
  /// when only a loader blocked for untrusted input does. A header that does not parse
  /// yet is ``needMore``: the decode of the whole body says what is wrong with it.
  ///
  /// The probe (the loaders' sniffs and the header's read, steps libvips cannot be asked
  /// to stop) runs on an ``AbandonableWorker`` under `timeLimit`, or a shorter limit
  /// already on this thread: past it the worker is abandoned and the probe throws
  /// ``VipsError/timedOut(source:seconds:)``, so a download's thread is never held by
  /// bytes a sniff loops on.
  public static func probe(_ prefix: [UInt8], name: String, timeLimit: Duration = timeLimit)
    throws(VipsError) -> HeaderProbe
  {
    try Vips.start()
    guard !prefix.isEmpty else { return .needMore }
    return try Vips.withTimeLimit(timeLimit, source: name, timedOut: { $0 }) {
      () throws(VipsError) in
      try Vips.openBounded(source: name) { () throws(VipsError) in
        try probeOnThisThread(prefix, name: name)
      }
    }
  }

  private static func probeOnThisThread(_ prefix: [UInt8], name: String) throws(VipsError)
    -> HeaderProbe
  {
    do {
      _ = try InputCheck.bytes(prefix, name: name, complete: false)
    } catch .notAnImage where prefix.count < signatureBytes {
      return .needMore
    }
    guard let image = try? VipsImage(bytes: prefix, name: name, limits: nil) else {
      return .needMore
    }
    return .header(image.header)
  }
}

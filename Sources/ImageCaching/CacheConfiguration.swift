import Foundation
import ImageProcessing
import ImageTables
import Vips

/// What an ``ImageCache`` is made of.
public struct CacheConfiguration: Sendable {
  /// The folder the tables live in.
  public var directory: URL
  public var formats: [ImageFormat]
  /// The device class this cache serves: formats not kept for it get no table.
  public var device: DeviceClass
  /// What transparency is flattened onto for opaque styles.
  public var background: RGBA
  public var registry: ProcessorRegistry
  public var protection: ProtectionState
  /// Header limits checked before any decode.
  public var limits: ImageLimits
  /// How damaged a source may be and still fill (libvips's `fail_on`): the default
  /// refuses a file cut short but fills from a JPEG missing only its EOI marker.
  public var failOn: FailOn
  /// The longest one fill's decode, pipelines and rasterising may take (30 seconds by
  /// default): past it the fill stops and fails with
  /// ``Vips/VipsError/timedOut(source:seconds:)`` ("took longer than 30 s"), writes
  /// nothing, and the cache's other fills go on. libvips's kill switch stops the pixel
  /// work; the steps before an image exists (the loader's sniff and header), which
  /// libvips cannot be asked to stop, run on a worker that is abandoned at the limit
  /// (see ARCHITECTURE.md, "Every input answers in bounded time"). A source's download
  /// is not counted: ``WebLoading/HTTPLimits`` bound it.
  public var decodeTimeout: Duration
  /// The cache's own worker threads, which run every fill's decode, pipelines,
  /// rasterising and writes (never Swift's cooperative pool); the default is the
  /// number of cores.
  public var workers: Int
  /// Fetches `.url` sources. The default, a ``StandardLoader``, reads `file:` URLs and
  /// downloads `http`/`https` ones with the standard ``WebLoading/HTTPLimits``, checking
  /// each image's header against the `limits` given to this init as it arrives.
  public var loader: any SourceLoader
  /// Receives what the tables noticed (invalidation, corrupt entries).
  public var report: @Sendable (ImageTableEvent) -> Void
  /// For batch renders: written entries leave this process's memory (see
  /// ``ImageTable/Options/releasesWrittenPages``), so memory stays flat however many.
  public var releasesWrittenPages: Bool
  /// Open every table for reading only: no lock is taken and nothing is written, so a
  /// read-only folder (or a folder another process writes) can be read. Every table
  /// must exist; a fill fails with the table's `readOnly` error.
  public var readOnly: Bool
  /// When another writer has a table open (another process, or another `ImageCache`
  /// in this one), wait for it to end (or to ``ImageCache/close()``) rather than fail.
  public var waitForWriter: Bool
  /// How many processes may read each table at once (``ImageTable/Options/maxReaders``).
  public var maxReaders = ImageTable.defaultMaxReaders

  public init(
    directory: URL, formats: [ImageFormat], device: DeviceClass = .server,
    background: RGBA = RGBA(255, 255, 255), registry: ProcessorRegistry = .withBuiltIns(),
    protection: ProtectionState = .alwaysUnlocked, limits: ImageLimits = .standard,
    failOn: FailOn = .truncated, decodeTimeout: Duration = .seconds(30),
    workers: Int = ProcessInfo.processInfo.activeProcessorCount,
    loader: (any SourceLoader)? = nil,
    report: @escaping @Sendable (ImageTableEvent) -> Void = { _ in },
    releasesWrittenPages: Bool = false, readOnly: Bool = false, waitForWriter: Bool = false
  ) {
    self.directory = directory
    self.formats = formats
    self.device = device
    self.background = background
    self.registry = registry
    self.protection = protection
    self.limits = limits
    self.failOn = failOn
    self.decodeTimeout = decodeTimeout
    self.workers = workers
    self.loader = loader ?? StandardLoader(http: HTTPSourceLoader(imageLimits: limits))
    self.report = report
    self.releasesWrittenPages = releasesWrittenPages
    self.readOnly = readOnly
    self.waitForWriter = waitForWriter
  }
}

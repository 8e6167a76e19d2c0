import Foundation
import ImageProcessing
import ImageTables
import Locking
import Vips

/// The image cache (FastImageCache's `FICImageCache`): formats, their tables, fills
/// from one decode per family, and retrieval with no decode and no copy.
///
/// <!-- snippet context: import ImageTables -->
/// <!-- snippet context: let cacheURL = URL(fileURLWithPath: ".imgtool-cache") -->
/// <!-- snippet context: let small = try ImageFormat( -->
/// <!-- snippet context:   name: "avatar.small", family: "avatar", width: 32, height: 32) -->
/// <!-- snippet context: let formats = [small] -->
/// <!-- snippet context: func draw(_ bitmap: Bitmap) {} -->
/// ```swift
/// let cache = try ImageCache(configuration: .init(directory: cacheURL, formats: formats))
/// let ada = Entity(id: "people/ada", sourceVersion: "v3", source: .file("ada.jpg"))
/// if let avatar = cache.cachedImage(for: ada, format: "avatar.small") {
///   draw(avatar)                                  // a hit: no I/O, no decode
/// } else {
///   let avatar = try await cache.image(for: ada, format: "avatar.small")
/// }
/// ```
///
/// Fills run on the cache's own worker threads (``CacheConfiguration/workers`` of them),
/// never on Swift's cooperative pool, so an app's other tasks go on while a prefetch
/// decodes: highest ``FillPriority`` first, and a cancelled fill stops at its next step.
public final class ImageCache: Sendable {
  public let configuration: CacheConfiguration
  /// The formats kept for this cache's device, by name.
  public let formats: [String: ImageFormat]
  private let tables: [String: ImageTable]
  private let pipelines: [String: Pipeline]
  private let workers: FillWorkers
  private let loads: WorkLimiter
  private let state = Lock(State())

  private struct State {
    var operations: [FillOperation.Key: FillOperation] = [:]
    var cancelledWaiters: Set<UUID> = []
    var statistics = CacheStatistics()
    /// Fills whose task ``waitForFills()`` has not yet seen end.
    var started: [ObjectIdentifier: FillOperation] = [:]
    /// Run by a fill's task after it answers its waiters, before it lets go of the
    /// cache: tests widen that moment with it to show what ``waitForFills()`` waits for.
    var afterAnswering: (@Sendable () -> Void)?
    /// Set by ``close()``.
    var closed = false
  }

  /// See `State.afterAnswering` (for tests).
  func setAfterAnswering(_ hook: (@Sendable () -> Void)?) {
    state.withLock { $0.afterAnswering = hook }
  }

  /// Opens (or creates) a table for every format kept for the configured device, and
  /// builds every pipeline; an invalid pipeline or an unopenable table is an error here.
  public init(configuration: CacheConfiguration) throws(CacheError) {
    self.configuration = configuration
    var formats: [String: ImageFormat] = [:]
    var tables: [String: ImageTable] = [:]
    var pipelines: [String: Pipeline] = [:]
    // Names are unique across every device, not only among the formats kept here.
    var names: Set<String> = []
    for format in configuration.formats where !names.insert(format.name).inserted {
      throw .duplicateFormat(format.name)
    }
    // Every pipeline is built before any table is opened: a refused configuration
    // (a bad pipeline in its last format) creates no table of the others.
    let kept = configuration.formats.filter { $0.isKept(for: configuration.device) }
    for format in kept {
      do {
        pipelines[format.name] = try configuration.registry.pipeline(
          format.pipeline.isEmpty ? "fit" : format.pipeline)
      } catch {
        throw .invalidPipeline(format: format.name, error: error)
      }
    }
    for format in kept {
      guard let pipeline = pipelines[format.name] else { continue }
      do {
        tables[format.name] = try ImageTable(
          format: format, processorIdentifiers: pipeline.identifiers,
          directory: configuration.directory,
          options: .init(
            readOnly: configuration.readOnly, waitForWriter: configuration.waitForWriter,
            protection: configuration.protection, report: configuration.report,
            releasesWrittenPages: configuration.releasesWrittenPages,
            maxReaders: configuration.maxReaders))
      } catch {
        throw .table(format: format.name, error: error)
      }
      formats[format.name] = format
    }
    self.formats = formats
    self.tables = tables
    self.pipelines = pipelines
    workers = FillWorkers(count: configuration.workers, name: "cache fill")
    loads = WorkLimiter(limit: configuration.workers)
  }

  deinit { workers.stop() }

  /// The names of the formats of `family` this cache keeps, in configuration order.
  public func formatNames(family: String) -> [String] {
    configuration.formats.filter { $0.family == family && formats[$0.name] != nil }.map(\.name)
  }

  /// The table of a format, for looking at its entries and stats.
  public func table(format: String) -> ImageTable? { tables[format] }

  public var statistics: CacheStatistics { state.withLock { $0.statistics } }

  // MARK: Retrieval

  /// The entry if it is in the table now, else nil: synchronous, never blocks on I/O
  /// or decoding (the hit path a scrubber calls while scrolling).
  public func cachedImage(for entity: Entity, format: String) -> Bitmap? {
    tables[format]?.bitmap(entityID: entity.id, sourceVersion: entity.sourceVersion)
  }

  /// The source version of the entry `format`'s table holds for `entityID` now, whichever
  /// it is (nil: none): to read an entry written by someone who knew the version (an
  /// `imgtool render` of a URL stores the server's ETag) without knowing it yourself.
  public func sourceVersion(of entityID: String, format: String) -> String? {
    tables[format]?.sourceVersion(entityID: entityID)
  }

  /// Whether the entry is in the table now, at its source version: decided from the
  /// table's index alone (``ImageTable/contains(entityID:sourceVersion:)``), reading no
  /// pixel, as a render's up-to-date check needs.
  public func contains(_ entity: Entity, format: String) -> Bool {
    tables[format]?.contains(entityID: entity.id, sourceVersion: entity.sourceVersion) ?? false
  }

  /// A hit, or a fill of the format's family (or of this format alone, if
  /// `wholeFamily` is false) and then the entry.
  ///
  /// `progress` hears how far the fill's source load has come (a URL source's bytes, as
  /// the ``SourceLoader`` reports them): see ``fill(_:family:only:force:priority:progress:)``.
  /// A hit calls it never.
  ///
  /// <!-- snippet context: import ImageTables -->
  /// <!-- snippet context: let small = try ImageFormat(name: "photo.screen", family: "photo", width: 64, height: 48) -->
  /// <!-- snippet context: let cache = try ImageCache(configuration: .init(directory: URL(fileURLWithPath: "c"), formats: [small])) -->
  /// ```swift
  /// let url = URL(string: "https://example.com/rome.jpg")!
  /// let rome = Entity(id: url.absoluteString, sourceVersion: "1", source: .url(url))
  /// let screen = try await cache.image(for: rome, format: "photo.screen") { progress in
  ///   if let fraction = progress.fraction { print("\(Int(fraction * 100))%") }
  /// }
  /// ```
  public func image(
    for entity: Entity, format: String, wholeFamily: Bool = true, priority: FillPriority = .normal,
    progress: (@Sendable (LoadProgress) -> Void)? = nil
  ) async throws(CacheError) -> Bitmap {
    if let hit = cachedImage(for: entity, format: format) { return hit }
    guard let family = formats[format]?.family else { throw .unknownFormat(format) }
    let filled = try await fill(
      entity, family: family, only: wholeFamily ? nil : [format], force: false,
      priority: priority, wants: [format], progress: progress)
    guard let bitmap = filled[format] ?? cachedImage(for: entity, format: format) else {
      throw .cancelled(entityID: entity.id)
    }
    return bitmap
  }

  // MARK: Filling

  /// Decodes the source once, at the largest size the family needs, runs each format's
  /// pipeline on it and writes each table. Requests for the same entity, version and
  /// formats while one runs wait for it instead of decoding again. Returns the entries.
  ///
  /// The work runs on the cache's worker threads, `priority` deciding which queued fill
  /// goes first. If anything fails (the source, a pipeline), every waiter gets the error
  /// and nothing is written for the entity. `only` limits the fill to some formats of
  /// the family; `force` redraws entries that are up to date.
  ///
  /// `progress`, if given, hears how far the source's load has come, as the
  /// ``SourceLoader`` reports it: every request waiting for the fill hears the same
  /// reports, and a request that joins a fill under way hears the newest at once. The
  /// calls come outside the cache's lock, one at a time and in order for each request,
  /// and never once its request has returned (or thrown). Sources that are not URLs, and
  /// loaders that report nothing, give no progress.
  @discardableResult
  public func fill(
    _ entity: Entity, family: String, only: Set<String>? = nil, force: Bool = false,
    priority: FillPriority = .normal, progress: (@Sendable (LoadProgress) -> Void)? = nil
  ) async throws(CacheError) -> [String: Bitmap] {
    try await fill(
      entity, family: family, only: only, force: force, priority: priority, wants: nil,
      progress: progress)
  }

  /// A fill for a writer that does not read what it writes (a batch render): as
  /// ``fill(_:family:only:force:priority:progress:)``, but its entries are not looked up
  /// afterwards and it hands back the names of the formats filled (those of `only`, else
  /// the family's). A look-up's first serve of an entry reads its pixels to check their
  /// checksum, which maps the pages that ``CacheConfiguration/releasesWrittenPages`` has
  /// just let go of: a render of 100,000 photos held 1.8 GB of table pages at its end.
  @discardableResult
  public func fillWithoutReading(
    _ entity: Entity, family: String, only: Set<String>? = nil, force: Bool = false,
    priority: FillPriority = .normal
  ) async throws(CacheError) -> Set<String> {
    _ = try await fill(
      entity, family: family, only: only, force: force, priority: priority, wants: [])
    return only ?? Set(formatNames(family: family))
  }

  /// A fill, and then the entries of `wants` (nil: all of its formats), looked up once
  /// this request runs. An entry evicted before that (the request waited for a thread
  /// while the table took newer ones) is filled again, up to three times.
  private func fill(
    _ entity: Entity, family: String, only: Set<String>?, force: Bool, priority: FillPriority,
    wants: Set<String>?, progress: (@Sendable (LoadProgress) -> Void)? = nil
  ) async throws(CacheError) -> [String: Bitmap] {
    var names = formatNames(family: family)
    guard !names.isEmpty else { throw .unknownFamily(family) }
    if let only {
      for name in only where !names.contains(name) {
        throw formats[name] == nil ? .unknownFormat(name) : .unknownFamily(family)
      }
      names = names.filter(only.contains)
    }
    let wanted = wants.map { Set(names).intersection($0) } ?? Set(names)
    func lookUp() -> [String: Bitmap]? {
      let hits = wanted.compactMap { name in
        cachedImage(for: entity, format: name).map { (name, $0) }
      }
      return hits.count == wanted.count ? Dictionary(uniqueKeysWithValues: hits) : nil
    }
    let key = FillOperation.Key(
      entityID: entity.id, sourceVersion: entity.sourceVersion, formats: names)
    var forcing = force
    for _ in 0..<3 {
      if !forcing, names.allSatisfy({ contains(entity, format: $0) }), let hits = lookUp() {
        return hits
      }
      try await waitForFill(key: key, entity: entity, priority: priority, progress: progress)
      forcing = false
      if let entries = lookUp() { return entries }
    }
    throw .cancelled(entityID: entity.id)
  }

  /// Joins the fill of `key` (starting it if none runs) and returns when it has ended.
  private func waitForFill(
    key: FillOperation.Key, entity: Entity, priority: FillPriority,
    progress: (@Sendable (LoadProgress) -> Void)?
  ) async throws(CacheError) {
    let waiter = UUID()
    do {
      try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
          join(
            key: key, waiter: FillWaiter(continuation, progress: progress), id: waiter,
            priority: priority, entity: entity)
        }
      } onCancel: {
        leave(key: key, waiter: waiter, entityID: entity.id)
      }
    } catch let error as CacheError {
      throw error
    } catch {
      throw .cancelled(entityID: entity.id)
    }
  }

  /// Starts fills for `entities` and returns at once; nobody needs to wait. The task
  /// it returns ends when all are done, for those who want to know, and `onFailure`
  /// hears of each entity that could not be filled, with its error, as it fails.
  ///
  /// Prefetched entries are not held for anyone (no ``Bitmap`` of them stays pinned),
  /// and they run at `priority` (``FillPriority/low`` unless said), after the fills of
  /// what is on screen.
  ///
  /// <!-- snippet context: import ImageTables -->
  /// <!-- snippet context: let small = try ImageFormat(name: "avatar.small", family: "avatar", width: 32, height: 32) -->
  /// <!-- snippet context: let setup = CacheConfiguration(directory: URL(fileURLWithPath: "c"), formats: [small]) -->
  /// <!-- snippet context: let cache = try ImageCache(configuration: setup) -->
  /// <!-- snippet context: let friends = [Entity(id: "a", sourceVersion: "1", source: .file("a"))] -->
  /// ```swift
  /// cache.prefetch(friends, family: "avatar") { failure in
  ///   print("not prefetched: \(failure.entity.id): \(failure.error)")
  /// }
  /// ```
  @discardableResult
  public func prefetch(
    _ entities: [Entity], family: String, priority: FillPriority = .low,
    onFailure: (@Sendable (PrefetchFailure) -> Void)? = nil
  ) -> Task<Void, Never> {
    Task {
      await withTaskGroup(of: Void.self) { group in
        for entity in entities {
          group.addTask {
            do throws(CacheError) {
              _ = try await self.fill(
                entity, family: family, only: nil, force: false, priority: priority, wants: [])
            } catch {
              // Cancelling the prefetch's task is what its caller asked for, not a failure.
              if case .cancelled = error, Task.isCancelled { return }
              onFailure?(PrefetchFailure(entity: entity, error: error))
            }
          }
        }
      }
    }
  }

  /// Cancels a fill of the entity for the family: its waiters get
  /// ``CacheError/cancelled(entityID:)`` at once and nothing more is written. A fill
  /// still queued never runs; one running stops at its next step (after the decode, a
  /// format's pipeline, its rasterising or a write), removing what it wrote.
  public func cancel(_ entity: Entity, family: String) {
    let names = formatNames(family: family)
    let cancelled = state.withLock { state -> [(FillOperation, [FillWaiter])] in
      let keys = state.operations.keys.filter {
        $0.entityID == entity.id && $0.sourceVersion == entity.sourceVersion
          && Set($0.formats).isSubset(of: names)
      }
      return keys.compactMap { key in
        guard let operation = state.operations.removeValue(forKey: key) else { return nil }
        defer { operation.waiters.removeAll() }
        return (operation, Array(operation.waiters.values))
      }
    }
    for (operation, waiters) in cancelled {
      operation.task?.cancel()
      for waiter in waiters { waiter.finish(.failure(CacheError.cancelled(entityID: entity.id))) }
    }
  }

  /// Removes the entity's entries from every table (or `formats`); live bitmaps stay valid.
  public func delete(_ entityID: String, formats names: [String]? = nil) {
    for name in names ?? Array(tables.keys) { tables[name]?.delete(entityID: entityID) }
  }

  /// Removes every entry of every table; live bitmaps stay valid.
  public func reset() throws(CacheError) {
    for (name, table) in tables {
      do { try table.reset() } catch { throw .table(format: name, error: error) }
    }
  }

  /// Waits until the fills started so far have ended, their tasks included.
  ///
  /// A fill's waiters get their result just before its task returns, and the task
  /// holds the cache (and so its tables' writer locks) until then. Call this before
  /// letting go of a cache that another writer, in this process or another, opens next
  /// (or call ``close()``, which lets go of the locks whether or not the cache goes):
  ///
  /// <!-- snippet context: let folder = URL(fileURLWithPath: ".imgtool-cache") -->
  /// <!-- snippet context: import ImageTables -->
  /// <!-- snippet context: let small = try ImageFormat(name: "avatar.small", family: "avatar", width: 32, height: 32) -->
  /// <!-- snippet context: let setup = CacheConfiguration(directory: folder, formats: [small]) -->
  /// <!-- snippet context: let cache = try ImageCache(configuration: setup) -->
  /// <!-- snippet context: let photo = Entity(id: "a", sourceVersion: "1", source: .file("a")) -->
  /// ```swift
  /// _ = try await cache.fill(photo, family: "avatar")
  /// await cache.waitForFills()  // the tables are released when `cache` goes
  /// ```
  public func waitForFills() async {
    while true {
      let tasks = state.withLock { state in
        defer { state.started.removeAll() }
        return state.started.values.compactMap(\.task)
      }
      if tasks.isEmpty { return }
      for task in tasks { await task.value }
    }
  }

  /// Ends the cache's writing: fills waiting or queued end with
  /// ``CacheError/closed(directory:)`` at once, fills running stop at their next step,
  /// writes under way are committed, and then every table's writer lock is let go, so
  /// another `ImageCache` on the folder (in this process or another) can be the writer.
  /// Hits go on being served; every later fill fails with ``CacheError/closed(directory:)``.
  /// A second call does nothing.
  ///
  /// <!-- snippet context: let cacheURL = URL(fileURLWithPath: ".imgtool-cache") -->
  /// <!-- snippet context: import ImageTables -->
  /// <!-- snippet context: let formats = [try ImageFormat(name: "a", width: 8, height: 8)] -->
  /// <!-- snippet context: let setup = CacheConfiguration(directory: cacheURL, formats: formats) -->
  /// <!-- snippet context: let cache = try ImageCache(configuration: setup) -->
  /// ```swift
  /// cache.close()
  /// let next = try ImageCache(configuration: .init(directory: cacheURL, formats: formats))
  /// _ = next.formats
  /// ```
  public func close() {
    let directory = configuration.directory.path
    let operations = state.withLock { state -> [(FillOperation, [FillWaiter])] in
      guard !state.closed else { return [] }
      state.closed = true
      defer { state.operations.removeAll() }
      return state.operations.values.map { operation in
        defer { operation.waiters.removeAll() }
        return (operation, Array(operation.waiters.values))
      }
    }
    for (operation, waiters) in operations {
      operation.task?.cancel()
      for waiter in waiters { waiter.finish(.failure(CacheError.closed(directory: directory))) }
    }
    for table in tables.values { table.close() }
    workers.stop()
  }

  // MARK: Operations

  private func join(
    key: FillOperation.Key, waiter: FillWaiter, id: UUID, priority: FillPriority, entity: Entity
  ) {
    enum Joined {
      case refused(CacheError)
      case joined((latest: LoadProgress, sequence: UInt64)?)
    }
    let joined = state.withLock { state -> Joined in
      if state.cancelledWaiters.remove(id) != nil {
        return .refused(.cancelled(entityID: entity.id))
      }
      if state.closed { return .refused(.closed(directory: configuration.directory.path)) }
      if let running = state.operations[key] {
        running.waiters[id] = waiter
        state.statistics.mergedRequests += 1
        if priority > running.priority {
          running.priority = priority
          if let ticket = running.ticket { workers.raise(ticket, to: priority) }
        }
        return .joined(running.progress)
      }
      let operation = FillOperation(key: key, priority: priority)
      operation.waiters[id] = waiter
      state.operations[key] = operation
      state.statistics.fills += 1
      operation.task = Task { await self.run(operation, entity: entity) }
      state.started = state.started.filter { !$0.value.finished }
      state.started[ObjectIdentifier(operation)] = operation
      return .joined(nil)
    }
    switch joined {
    case .refused(let refusal): waiter.finish(.failure(refusal))
    // A fill under way: the newest progress at once (unless a newer one got there first).
    case .joined(let progress?): waiter.report(progress.latest, sequence: progress.sequence)
    case .joined(nil): break
    }
  }

  private func leave(key: FillOperation.Key, waiter: UUID, entityID: String) {
    let (continuation, abandoned) = state.withLock { state -> (FillWaiter?, FillOperation?) in
      guard let operation = state.operations[key],
        let continuation = operation.waiters.removeValue(forKey: waiter)
      else {
        state.cancelledWaiters.insert(waiter)
        return (nil, nil)
      }
      guard operation.waiters.isEmpty else { return (continuation, nil) }
      state.operations[key] = nil
      return (continuation, operation)
    }
    continuation?.finish(.failure(CacheError.cancelled(entityID: entityID)))
    abandoned?.task?.cancel()  // no one else waits: stop the load (the loader's task too)
  }

  /// A fill's task: loads a URL source here (an `async` loader), then hands the rest
  /// to a worker thread and waits for it there. Cancelling the task withdraws the work
  /// from the queue (it ends at once) or makes it stop at its next step.
  private func run(_ operation: FillOperation, entity: Entity) async {
    await withTaskCancellationHandler {
      do throws(CacheError) {
        let source = try await load(entity, for: operation)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
          let work: @Sendable () -> Void = {
            // The written entries' bitmaps go at the end of this closure, on this
            // thread: waiters look up what they want when they run.
            let result: Result<Int, CacheError>
            do throws(CacheError) {
              result = .success(try self.draw(entity, source: source, for: operation).count)
            } catch {
              result = .failure(error)
            }
            self.answer(operation, with: result)
            done.resume()
          }
          let queued = state.withLock { _ -> Bool in
            guard !operation.isCancelled,
              let ticket = workers.submit(priority: operation.priority, work)
            else { return false }
            operation.ticket = ticket
            return true
          }
          if !queued { work() }  // cancelled, or the cache closed: it ends at its first step
        }
      } catch {
        answer(operation, with: .failure(error))
      }
    } onCancel: {
      operation.cancelled.store(true, ordering: .releasing)
      let ticket = state.withLock { _ in operation.ticket }
      if let ticket, let work = workers.withdraw(ticket) { work() }
    }
    state.withLock { $0.afterAnswering }?()
  }

  /// Tells every waiter the fill ended (with the count of entries written) or failed.
  private func answer(_ operation: FillOperation, with result: Result<Int, CacheError>) {
    let waiters = state.withLock { state -> [FillWaiter] in
      if state.operations[operation.key] === operation { state.operations[operation.key] = nil }
      operation.finished = true
      switch result {
      case .success(let written): state.statistics.entriesWritten += written
      case .failure: state.statistics.failures += 1
      }
      defer { operation.waiters.removeAll() }
      return Array(operation.waiters.values)
    }
    for waiter in waiters {
      waiter.finish(result.map { _ in () }.mapError { $0 as any Error })
    }
  }

  /// Records the newest progress of a fill's load and tells every request waiting for it
  /// (outside the lock; each in order: see ``FillWaiter``).
  private func report(_ progress: LoadProgress, of operation: FillOperation) {
    let (waiters, sequence) = state.withLock { _ -> ([FillWaiter], UInt64) in
      guard !operation.finished else { return ([], 0) }
      let sequence = (operation.progress?.sequence ?? 0) + 1
      operation.progress = (progress, sequence)
      return (Array(operation.waiters.values), sequence)
    }
    for waiter in waiters { waiter.report(progress, sequence: sequence) }
  }

  /// What a fill decodes: the bytes (a URL's, loaded; given ones), or a file's path.
  private struct Source: Sendable {
    var bytes: [UInt8]?
    var name: String
  }

  private func load(_ entity: Entity, for operation: FillOperation) async throws(CacheError)
    -> Source
  {
    switch entity.source {
    case .file(let path):
      return Source(bytes: nil, name: path)
    case .bytes(let data, let label):
      return Source(bytes: data, name: label)
    case .url(let url):
      await loads.acquire()
      let loaded: Result<[UInt8], any Error>
      if operation.isCancelled {
        loaded = .failure(CacheError.cancelled(entityID: entity.id))
      } else {
        do {
          // Runs in the fill's own task: cancelling it (the last waiter leaving, `cancel`,
          // `close`) is what the loader sees.
          loaded = .success(
            try await configuration.loader.load(url) { [weak self] progress in
              self?.report(progress, of: operation)
            })
        } catch {
          loaded = .failure(error)
        }
      }
      await loads.release()
      switch loaded {
      case .success(let bytes):
        return Source(bytes: bytes, name: url.absoluteString)
      case .failure(let error as CacheError):
        throw error
      case .failure(let error):
        if operation.isCancelled { throw .cancelled(entityID: entity.id) }
        throw CacheError(loading: error, entityID: entity.id, url: url)
      }
    }
  }

  /// Decodes once, runs every pipeline, and only if all succeeded writes them; on a
  /// worker thread. Each step (the decode, a format's pipeline, its rasterising, each
  /// write) begins only if the fill is not cancelled.
  private func draw(_ entity: Entity, source: Source, for operation: FillOperation)
    throws(CacheError) -> [String: Bitmap]
  {
    let names = operation.key.formats
    func step() throws(CacheError) {
      if operation.isCancelled { throw .cancelled(entityID: entity.id) }
    }
    try step()
    // The decode, the pipelines and the rasterising run under the time limit; the
    // writes after them only copy pixels already computed, so a fill stopped at its
    // limit has written nothing.
    let rasters = try Vips.withTimeLimit(
      configuration.decodeTimeout, source: source.name,
      timedOut: { CacheError.source(entityID: entity.id, source: source.name, error: $0) }
    ) { () throws(CacheError) in
      try rasterize(entity, source: source, formats: names, step: step)
    }
    var written: [String: Bitmap] = [:]
    for (name, raster) in rasters {
      guard let table = tables[name] else { continue }
      if operation.isCancelled {
        for name in written.keys { tables[name]?.delete(entityID: entity.id) }
        throw .cancelled(entityID: entity.id)
      }
      do {
        written[name] = try table.write(
          entityID: entity.id, sourceVersion: entity.sourceVersion, width: raster.width,
          height: raster.height
        ) { canvas in raster.draw(into: canvas) }
      } catch {
        let failure =
          error as? ImageTableError
          ?? .io(path: table.tablePath, operation: "write", message: "\(error)")
        throw undo(written, of: entity, family: formats[name]?.family ?? "", failure: failure)
      }
    }
    return written
  }

  /// A fill's decode and, for each format, its pipeline and rasterising: the pixels its
  /// writes copy.
  private func rasterize(
    _ entity: Entity, source: Source, formats names: [String],
    step: () throws(CacheError) -> Void
  ) throws(CacheError) -> [(String, Rasterizer)] {
    let decoded = try decode(entity, source: source, covering: names)
    // What a processor learns about the decoded image (where attention or faces are)
    // serves every format of this fill.
    let memo = ProcessingMemo()
    var rasters: [(String, Rasterizer)] = []
    for name in names {
      guard let format = formats[name], let pipeline = pipelines[name] else {
        throw .unknownFormat(name)
      }
      let context = ProcessingContext(
        format: format, entityID: entity.id, background: configuration.background, memo: memo,
        geometry: decoded.geometry)
      try step()
      let processed: VipsImage
      do {
        processed = try pipeline.process(decoded.image, context: context)
      } catch {
        throw .processing(entityID: entity.id, format: name, error: error)
      }
      try step()
      do {
        rasters.append(
          (
            name,
            try Rasterizer.prepare(
              processed, style: format.style, background: configuration.background,
              slotWidth: format.pixelWidth, slotHeight: format.pixelHeight, format: name)
          ))
      } catch {
        throw .processing(entityID: entity.id, format: name, error: error)
      }
    }
    return rasters
  }

  /// A fill is all or nothing: when one format's write fails, the entries this fill
  /// already wrote for the others are removed before the error returns.
  private func undo(
    _ written: [String: Bitmap], of entity: Entity, family: String, failure: ImageTableError
  ) -> CacheError {
    for name in written.keys { tables[name]?.delete(entityID: entity.id) }
    return .fillUndone(
      entityID: entity.id, family: family, removed: written.keys.sorted(), error: failure)
  }

  /// The one decode of a fill: shrink-on-load only, as far as every format of the
  /// family allows, even when only some of its formats are filled, so that an entry's
  /// pixels never depend on which formats were asked for with it.
  private func decode(_ entity: Entity, source: Source, covering names: [String])
    throws(CacheError) -> SourceDecoder.Decoded
  {
    let families = Set(names.compactMap { formats[$0]?.family })
    let consumers: [SourceDecoder.Consumer] = formats.values.filter {
      families.contains($0.family)
    }.compactMap { format in
      pipelines[format.name].map { ($0, ProcessingContext(format: format, entityID: entity.id)) }
    }
    state.withLock { $0.statistics.decodes += 1 }
    do {
      if let bytes = source.bytes {
        return try SourceDecoder.decode(
          bytes: bytes, name: source.name, for: consumers, limits: configuration.limits,
          failOn: configuration.failOn)
      }
      return try SourceDecoder.decode(
        file: source.name, for: consumers, limits: configuration.limits,
        failOn: configuration.failOn)
    } catch {
      throw .source(entityID: entity.id, source: source.name, error: error)
    }
  }
}

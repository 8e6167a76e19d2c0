import Foundation
import Synchronization

/// One format's entries in a memory-mapped file (FastImageCache's `FICImageTable`).
///
/// Entries are fixed-size slots keyed by an entity id (any string) and a source
/// version. A hit is a ``Bitmap`` that views the mapped bytes: no system call, no
/// allocation, no decode, no copy. The table keeps at most the format's
/// `maximumCount` entries; the least recently used entry that no live `Bitmap` views
/// makes room. An entry becomes visible only once its pixels and record are complete,
/// and after a crash only entries that verify are served.
///
/// <!-- snippet context: let avatar = try ImageFormat(name: "avatar", width: 64, height: 64) -->
/// <!-- snippet context: let cacheURL = URL(fileURLWithPath: ".imgtool-cache") -->
/// ```swift
/// let table = try ImageTable(format: avatar, directory: cacheURL)
/// try table.write(entityID: "ada.jpg", sourceVersion: "v1", width: 64, height: 64) { canvas in
///   // fill canvas.bytes, canvas.bytesPerRow apart, in canvas.style
/// }
/// let bitmap = table.bitmap(entityID: "ada.jpg", sourceVersion: "v1")
/// ```
public final class ImageTable: @unchecked Sendable {
  // Safety of @unchecked Sendable: the writer's state is behind `state`'s lock; hits go
  // through atomics on the shared mappings (the protocol atop SharedFile.swift).

  /// How a table is opened.
  public struct Options: Sendable {
    /// Open for reading only: no lock is taken and nothing is written. Another process
    /// may be writing; each hit re-checks that its entry is still the one indexed.
    public var readOnly: Bool
    /// When another process is the writer, wait for it rather than fail.
    public var waitForWriter: Bool
    /// The lock state the format's protection mode is checked against.
    public var protection: ProtectionState
    /// Receives what the table noticed and dealt with (invalidation, corrupt entries).
    public var report: @Sendable (ImageTableEvent) -> Void
    /// For a process that writes many entries and reads few (a batch render): after each
    /// write, let the kernel take the entry's pages out of this process's memory. They
    /// stay in the page cache and on disk; a later read maps them back.
    public var releasesWrittenPages: Bool
    /// How many processes' table instances may read the table at once (LMDB's
    /// `mdb_env_set_maxreaders`): the reader records of its `.shared` file, 64 bytes each
    /// plus a sparse pin array of 4 bytes per entry, in 1...65,536. It sizes the file when
    /// an open makes it; later opens use the file's number, and a writer asking for more
    /// makes the file anew when no reader has it open. Every open instance claims a
    /// record while one is free, a writer's too. A reader finding every record held fails
    /// with ``ImageTableError/readerLimit(path:limit:)``; a writer finding none still
    /// writes, and serves copies.
    public var maxReaders: Int

    public init(
      readOnly: Bool = false, waitForWriter: Bool = false,
      protection: ProtectionState = .alwaysUnlocked,
      report: @escaping @Sendable (ImageTableEvent) -> Void = { _ in },
      releasesWrittenPages: Bool = false, maxReaders: Int = ImageTable.defaultMaxReaders
    ) {
      self.readOnly = readOnly
      self.waitForWriter = waitForWriter
      self.protection = protection
      self.report = report
      self.releasesWrittenPages = releasesWrittenPages
      self.maxReaders = maxReaders
    }
  }

  /// The reader records a table's shared file gets when nobody asks for another number.
  public static let defaultMaxReaders = SharedFile.defaultReaderCount

  public let format: ImageFormat
  public let fingerprint: FormatFingerprint
  public let layout: EntryLayout
  public let options: Options
  /// The table file; the index, shared and lock files sit beside it.
  public let tablePath: String
  public let indexPath: String
  /// The file processes share the table through: lookup buckets and the reader table.
  public let sharedPath: String
  let lockPath: String
  /// The header size of files this table creates (files it opens as written, with
  /// other settings, keep theirs: ``TableFiles/headerSize``).
  let headerSize: Int
  private let writerLock: WriterLock?
  /// The writer's memory (unused when read-only).
  private let state: TableLock<TableState>
  /// The files hits go to now, unretained (every opening stays in `openings`).
  private let current: Atomic<UnsafeRawPointer?>
  /// Every opening of the files, kept for the table's life: a hit may still be using
  /// one it loaded from `current` just before a reset replaced it.
  private let openings: TableLock<[TableFiles]>
  private let reopening = TableLock(())
  /// The lookup bucket problems a reader's list named last (named again only changed).
  private let reportedBucketProblems = TableLock<[VerificationReport.Problem]>([])
  /// Set by ``close()``; writes, deletes and resets check it first, under its lock.
  private let closed = TableLock(false)
  /// Writes between their reservation and their commit: ``close()`` waits for them.
  private let writesInFlight = DispatchGroup()
  /// Whether this writer's open read the last writer's summary instead of scanning the
  /// index (for tests).
  let openedFromSummary: Bool
  /// Test hook: how entity ids are hashed (a constant makes every id collide).
  let hashEntityID: @Sendable (String) -> UInt64

  /// The files of `formatName` in `directory`: `<name>.table`, `<name>.index`, `<name>.lock`
  /// (and `<name>.shared`, see ``sharedPath``).
  public static func paths(formatName: String, directory: URL) -> (
    table: String, index: String, lock: String
  ) {
    let base = directory.appendingPathComponent(formatName).path
    return (base + ".table", base + ".index", base + ".lock")
  }

  /// Opens the table of `format` in `directory`, creating it if needed.
  ///
  /// A table written for other pixels (a field that decides them changed: the size,
  /// the style, the pipeline, a processor's name, version or arguments) is recreated
  /// empty and reported once (``ImageTableEvent/invalidated(format:changedFields:)``);
  /// read-only, the open fails with ``ImageTableError/formatChanged(path:format:changedFields:)``
  /// and nothing is recreated. A table whose format differs only in `maximumCount`,
  /// `devices` or `protectionMode` keeps its entries (a smaller `maximumCount` keeps
  /// the most recently used), reported as
  /// ``ImageTableEvent/settingsChanged(format:changes:kept:evicted:)``.
  public convenience init(
    format: ImageFormat, processorIdentifiers: [String] = [], directory: URL,
    options: Options = Options()
  ) throws(ImageTableError) {
    try self.init(
      format: format, fingerprint: format.fingerprint(processorIdentifiers: processorIdentifiers),
      directory: directory, options: options, hashEntityID: { Checksum.hash($0) })
  }

  init(
    format: ImageFormat, fingerprint: FormatFingerprint, directory: URL, options: Options,
    hashEntityID: @escaping @Sendable (String) -> UInt64
  ) throws(ImageTableError) {
    self.format = format
    self.fingerprint = fingerprint
    self.layout = format.layout
    self.options = options
    self.hashEntityID = hashEntityID
    (tablePath, indexPath, lockPath) = Self.paths(formatName: format.name, directory: directory)
    sharedPath = directory.appendingPathComponent(format.name).path + ".shared"
    headerSize = TableFileLayout.tableHeaderSize(fingerprintBytes: fingerprint.text.utf8.count)
    for path in [tablePath, indexPath, sharedPath, lockPath] where MappedFile.isSymbolicLink(path) {
      throw .symbolicLink(path: path)
    }
    guard SharedFile.readerCountRange.contains(options.maxReaders) else {
      throw .invalidMaxReaders(options.maxReaders)
    }
    if options.readOnly {
      writerLock = nil
    } else {
      do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      } catch {
        throw .io(
          path: directory.path, operation: "mkdir", message: "\(error.localizedDescription)")
      }
      writerLock = try WriterLock(path: lockPath, wait: options.waitForWriter)
    }
    TableFiles.releaseUnpinnedOrphans()
    var events: [ImageTableEvent] = []
    let files = try Self.open(
      format: format, fingerprint: fingerprint, headerSize: headerSize,
      paths: Paths(
        table: tablePath, index: indexPath, shared: sharedPath, lock: lockPath,
        maxReaders: options.maxReaders),
      readOnly: options.readOnly, events: &events)
    var initial = TableState(files: files)
    var fromSummary = false
    if !options.readOnly {
      // A writer that closed cleanly left its memory in the summary; else (a crash, a
      // summary of other files) every record is scanned, torn writes cleared.
      if let generation = WriterSummary.beginSession(files),
        let summary = TableState.loadSummary(
          path: WriterSummary.path(indexPath: indexPath), files: files, generation: generation)
      {
        initial = summary
        fromSummary = true
      } else {
        // The buckets of a shared file found (not made now) name exactly the committed
        // records, but for damage or a writer killed mid-commit: a difference is named
        // as they are made again.
        initial.scan(
          format: format, hash: hashEntityID, checkingBuckets: !files.shared.isNew, events: &events)
      }
    } else {
      // A reader names files cut short at once (their entries are misses); the writer's
      // scan reports and clears them.
      events += files.cutShortProblems().map {
        .corruptEntry(format: format.name, slot: $0.slot, entityID: $0.entityID, reason: $0.reason)
      }
    }
    openedFromSummary = fromSummary
    state = TableLock(initial)
    current = Atomic(UnsafeRawPointer(Unmanaged.passUnretained(files).toOpaque()))
    openings = TableLock([files])
    events.forEach(options.report)
  }

  deinit {
    // Bitmaps hold no reference to their files (a hit touches no shared reference
    // count): whatever they still view is kept until they go.
    TableFiles.keepWhilePinned(openings.withLock { $0 })
  }

  /// Runs `body` with the files hits go to now, without retaining them (no shared
  /// reference count is touched on the hit path).
  @inline(__always)
  private func withCurrentFiles<Result>(_ body: (TableFiles) -> Result) -> Result {
    let pointer = current.load(ordering: .acquiring)!
    return Unmanaged<TableFiles>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
  }

  private func publish(_ files: TableFiles) {
    openings.withLock { $0.append(files) }
    current.store(
      UnsafeRawPointer(Unmanaged.passUnretained(files).toOpaque()), ordering: .releasing)
  }

  // MARK: Reading

  /// The entry for `entityID` if it holds `sourceVersion`, else nil; never blocks on a
  /// lock, I/O or decoding. Entries committed by the writer (in any process) are seen
  /// at the next lookup. The first serve of an entry in this table instance verifies its
  /// pixel checksum; a corrupt entry is reported and is a miss.
  public func bitmap(entityID: String, sourceVersion: String) -> Bitmap? {
    guard options.protection.allows(format.protectionMode) else { return nil }
    let hash = hashEntityID(entityID)
    // A reader checks first whether the writer replaced the files (one load of a
    // word every process only reads until a reset).
    if options.readOnly, !filesAreCurrent() { return nil }
    let found = withCurrentFiles {
      $0.lookup(entityID, hash: hash, sourceVersion: sourceVersion, pin: true)
    }
    switch found {
    case .hit(let bitmap): return bitmap
    case .miss, .other, .present: return nil
    case .corrupt(let slot, let sequence, let reason):
      if !options.readOnly {
        whileOpen { state.withLock { $0.removeCorrupt(slot, sequence: sequence) } }
      }
      options.report(
        .corruptEntry(format: format.name, slot: slot, entityID: entityID, reason: reason))
      return nil
    }
  }

  /// The source version of the entry the table holds for `entityID` now, whichever it
  /// is, or nil when it holds none: for a caller that takes whatever version is there
  /// (a photo of a URL that `imgtool render` wrote with the server's ETag). Never blocks;
  /// its pixels are checked by the hit that asks for them with this version.
  ///
  /// <!-- snippet context: let table = try ImageTable(format: try ImageFormat(name: "a", width: 8, height: 8), directory: URL(fileURLWithPath: "t")) -->
  /// ```swift
  /// if let version = table.sourceVersion(entityID: "https://example.com/rome.jpg") {
  ///   _ = table.bitmap(entityID: "https://example.com/rome.jpg", sourceVersion: version)
  /// }
  /// ```
  public func sourceVersion(entityID: String) -> String? {
    guard options.protection.allows(format.protectionMode) else { return nil }
    let hash = hashEntityID(entityID)
    if options.readOnly, !filesAreCurrent() { return nil }
    return withCurrentFiles { $0.sourceVersion(of: entityID, hash: hash) }
  }

  /// Whether an entry for `entityID` holds `sourceVersion`, from the index alone: its
  /// record is there, committed, for this key, and holds its record checksum (over the
  /// key, the size and the pixel checksum, seeded with the record's sequence). No pixel
  /// is read: the pixels are checked by the first hit of the entry and by ``verify()``.
  /// A record that fails its checksum is reported and is not contained.
  public func contains(entityID: String, sourceVersion: String) -> Bool {
    guard options.protection.allows(format.protectionMode) else { return false }
    let hash = hashEntityID(entityID)
    if options.readOnly, !filesAreCurrent() { return false }
    let found = withCurrentFiles {
      $0.lookup(entityID, hash: hash, sourceVersion: sourceVersion, pin: false)
    }
    switch found {
    case .present: return true
    case .hit, .miss, .other: return false
    case .corrupt(let slot, let sequence, let reason):
      if !options.readOnly {
        whileOpen { state.withLock { $0.removeCorrupt(slot, sequence: sequence) } }
      }
      options.report(
        .corruptEntry(format: format.name, slot: slot, entityID: entityID, reason: reason))
      return false
    }
  }

  /// Whether a record was left mid-write by a writer that stopped during the write (a
  /// `kill -9` while rendering): for a read-only table, a record being written while no
  /// process holds the writer's lock. Reads the records' sequences only. A writer's open
  /// clears such records (so a render that finds one opens the table for writing), and
  /// a writer's own records mid-write are its writes under way: false.
  ///
  /// <!-- snippet context: let table = try ImageTable(format: try ImageFormat(name: "a", width: 8, height: 8), directory: URL(fileURLWithPath: "t"), options: .init(readOnly: true)) -->
  /// ```swift
  /// if table.hasTornWrites {
  ///   // open the table for writing (not read-only) to clear them
  /// }
  /// ```
  public var hasTornWrites: Bool {
    guard options.readOnly else { return false }
    let midWrite = withCurrentFiles { files in
      (0..<files.indexSlotCount()).contains {
        TableFileLayout.isMidWrite(files.sequence($0).pointee.load(ordering: .acquiring))
      }
    }
    // A writer that runs is writing them; a lock file this process cannot open is
    // another's cache, which it cannot clear either.
    guard midWrite, let lock = try? WriterLock(path: lockPath, wait: false) else { return false }
    withExtendedLifetime(lock) {}
    return true
  }

  /// Whether a writer holds the table's writer lock now (in this process or another).
  /// Taken for a moment when no one holds it, as ``hasTornWrites`` does.
  private func writerIsRunning() -> Bool {
    do {
      let lock = try WriterLock(path: lockPath, wait: false)
      withExtendedLifetime(lock) {}
      return false
    } catch .lockedByAnotherWriter, .lockedInThisProcess {
      return true
    } catch {
      return false
    }
  }

  /// For a read-only table: whether the files hits go to are the table's current ones.
  /// When the writer replaced them (a reset, a changed format, damage), the new ones
  /// are opened; until that succeeds, every lookup is a miss (never a stale hit).
  @inline(__always)
  private func filesAreCurrent() -> Bool {
    let superseded = withCurrentFiles {
      $0.shared.superseded.pointee.load(ordering: .acquiring) != 0
    }
    guard superseded else { return true }
    // One reopen at a time; the others see the new files when it is done.
    return reopening.withLock { _ in
      let stillSuperseded = withCurrentFiles {
        $0.shared.superseded.pointee.load(ordering: .acquiring) != 0
      }
      guard stillSuperseded else { return true }
      return reopen()
    }
  }

  private func reopen() -> Bool {
    var events: [ImageTableEvent] = []
    guard
      let files = try? Self.open(
        format: format, fingerprint: fingerprint, headerSize: headerSize,
        paths: Paths(
          table: tablePath, index: indexPath, shared: sharedPath, lock: lockPath,
          maxReaders: options.maxReaders),
        readOnly: true, events: &events)
    else { return false }
    publish(files)
    state.withLock { $0 = TableState(files: files, generation: $0.generation + 1) }
    return true
  }

  // MARK: Writing

  /// Writes the entry for `entityID` at `sourceVersion`, drawn by `draw` into a buffer of
  /// the slot's layout and then written into the slot whole, and returns it. It replaces
  /// any entry for the same id only once complete; until then readers see the old one
  /// (or a miss). The canvas starts zeroed, padding past `width` included: a pixel
  /// `draw` does not set is stored as zero bytes.
  ///
  /// `width` and `height` are the size drawn, at most the format's pixel size (a small
  /// image may be stored smaller than the slot). If `draw` throws, nothing is stored.
  /// When every slot is pinned by a live ``Bitmap`` or being written, the calling
  /// thread waits for one, up to 2 s, then throws
  /// ``ImageTableError/noFreeSlot(format:capacity:)``.
  @discardableResult
  public func write(
    entityID: String, sourceVersion: String, width: Int? = nil, height: Int? = nil,
    draw: (borrowing EntryCanvas) throws -> Void
  ) throws -> Bitmap {
    let width = width ?? layout.width
    let height = height ?? layout.height
    try checkWritable(
      entityID: entityID, sourceVersion: sourceVersion, width: width, height: height)
    let hash = hashEntityID(entityID)
    let reservation = try reserve(replacing: (entityID, hash))
    defer { writesInFlight.leave() }
    let files = reservation.files
    let count = layout.bytesPerRow * height
    // Drawn into a buffer of this process's own memory, then put into the slot with one
    // pwrite (DrawingBuffers says why); the slot's bytes are the buffer's, so the
    // checksum of the buffer is the slot's.
    let buffer = DrawingBuffers.take(count: count)
    defer { DrawingBuffers.give(buffer) }
    let drawn = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
    // Zeroed as a new slot of the file reads: the buffer last held another entry, maybe of
    // another table, whose bytes must never show through a drawing that skips pixels or
    // in the row padding. (A memset of a buffer in use costs microseconds; the faults and
    // zeroing of fresh pages were what cost.)
    drawn.initializeMemory(as: UInt8.self, repeating: 0)
    let canvas = EntryCanvas(
      bytes: drawn, bytesPerRow: layout.bytesPerRow, width: width, height: height,
      style: layout.style)
    let checksum: UInt64
    do {
      try draw(canvas)
      checksum = Checksum.hash(UnsafeRawBufferPointer(drawn))
      try files.table.write(
        UnsafeRawBufferPointer(drawn),
        at: files.headerSize + reservation.slot * layout.entryStride)
    } catch {
      state.withLock { $0.abandon(reservation) }
      throw error
    }
    // Pinned before it is published, so it can never be evicted under the caller (a
    // writer without a reader record hands back a copy instead).
    let bitmap: Bitmap
    if let pins = files.pins {
      pins[reservation.slot].wrappingAdd(1, ordering: .sequentiallyConsistent)
      bitmap = Bitmap(
        base: UnsafeRawPointer(files.pixels(reservation.slot)), mapping: nil, width: width,
        height: height, bytesPerRow: layout.bytesPerRow, style: layout.style,
        entityID: entityID, sourceVersion: sourceVersion, pin: pins + reservation.slot)
    } else {
      bitmap = Bitmap(
        width: width, height: height, style: layout.style, entityID: entityID,
        sourceVersion: sourceVersion
      ) { copy in copy.bytes.copyMemory(from: UnsafeRawBufferPointer(drawn)) }
    }
    state.withLock { state in
      _ = state.commit(
        reservation, entityID: entityID, sourceVersion: sourceVersion, width: width,
        height: height, hash: hash, checksum: checksum)
    }
    if options.releasesWrittenPages {
      // The write mapped nothing; this lets go of the slot's pages a read mapped before.
      files.table.releasePages(
        offset: files.headerSize + reservation.slot * layout.entryStride, length: count)
    }
    return bitmap
  }

  /// Removes the entry for `entityID`; a live ``Bitmap`` of it (in any process) stays
  /// valid. Returns whether there was one.
  @discardableResult
  public func delete(entityID: String) -> Bool {
    guard !options.readOnly else { return false }
    let hash = hashEntityID(entityID)
    return whileOpen {
      state.withLock { state in
        guard let slot = state.find(entityID, hash: hash) else { return false }
        state.remove(slot)
        return true
      }
    } ?? false
  }

  /// Removes every entry. Live bitmaps (in any process) stay valid: the files are
  /// replaced, not truncated, and the old mapping lives as long as they do. Readers in
  /// other processes move to the new files at their next lookup.
  public func reset() throws(ImageTableError) {
    guard !options.readOnly else { throw .readOnly(format: format.name) }
    var events: [ImageTableEvent] = []
    try closed.withLock { closed throws(ImageTableError) in
      if closed { throw .closed(format: format.name) }
    }
    try state.withLock { state throws(ImageTableError) in
      let files = try Self.createFiles(
        format: format, fingerprint: fingerprint, headerSize: headerSize,
        paths: Paths(
          table: tablePath, index: indexPath, shared: sharedPath, lock: lockPath,
          maxReaders: options.maxReaders),
        events: &events)
      state = TableState(files: files, generation: state.generation + 1)
      publish(files)
    }
  }

  /// How long a write waits for a slot when every slot is pinned by a live ``Bitmap``
  /// or being written, before it fails with ``ImageTableError/noFreeSlot(format:capacity:)``.
  /// Bitmaps that fills hand to waiters that have not run yet go within it.
  static let slotPatience = Duration.seconds(2)

  /// A slot for a write, counted in ``writesInFlight`` (the caller leaves it). When every
  /// slot is pinned or being written, waits (this thread sleeps, growing from 1 ms to
  /// 16 ms a turn) for one to be let go, for up to ``slotPatience``.
  private func reserve(replacing entity: (id: String, hash: UInt64))
    throws(ImageTableError) -> Reservation
  {
    let deadline = ContinuousClock.now + Self.slotPatience
    var pause = 1
    while true {
      do {
        return try closed.withLock { closed throws(ImageTableError) in
          if closed { throw .closed(format: format.name) }
          let reservation = try state.withLock { state throws(ImageTableError) in
            try state.reserve(format: format, replacing: entity)
          }
          writesInFlight.enter()
          return reservation
        }
      } catch .noFreeSlot(let name, let capacity) {
        guard ContinuousClock.now < deadline else {
          throw .noFreeSlot(format: name, capacity: capacity)
        }
        usleep(useconds_t(pause * 1000))
        pause = min(16, pause * 2)
      }
    }
  }

  /// Runs `body` unless the table is closed (then nil), with the close held off meanwhile.
  private func whileOpen<Result>(_ body: () -> Result) -> Result? {
    closed.withLock { closed in closed ? nil : body() }
  }

  /// Stops writing and lets go of the writer lock, so another `ImageTable` (in this
  /// process or another) can become the writer: waits for writes under way to be
  /// committed first. Hits go on being served from the mapped files; writes, deletes
  /// and resets fail with ``ImageTableError/closed(format:)``. A second call does nothing.
  public func close() {
    let first = closed.withLock { closed in
      defer { closed = true }
      return !closed
    }
    guard first else { return }
    writesInFlight.wait()
    if !options.readOnly {
      state.withLock {
        $0.writeSummary(
          path: WriterSummary.path(indexPath: indexPath),
          permissions: mode_t(format.protectionMode.filePermissions))
      }
    }
    writerLock?.release()
  }

  /// Writes dirty pages back to disk (asynchronously).
  public func flush() {
    withCurrentFiles { files in
      files.table.flush()
      files.index.flush()
    }
  }

  // MARK: Looking

  public var stats: TableStats {
    let (entries, allocated) = withCurrentFiles { files -> (Int, Int) in
      if options.readOnly {
        let count = files.slotCount()
        return (Self.committedRecords(files, count: count).records.count, count)
      }
      return state.withLock { ($0.liveCount, $0.slots.count) }
    }
    return withCurrentFiles { files in
      TableStats(
        format: format.name, entries: entries, capacity: files.capacity,
        allocatedEntries: allocated, bytesPerEntry: layout.entryStride,
        rawBytesPerEntry: layout.width * layout.height * layout.style.bytesPerPixel,
        fileBytes: Self.fileLength(files.table) + Self.fileLength(files.index))
    }
  }

  static func fileLength(_ file: MappedFile) -> Int {
    var status = stat()
    return fstat(file.descriptor, &status) == 0 ? Int(status.st_size) : file.length
  }

  /// The committed records of the first `count` slots, read as a seqlock reader does,
  /// and the committed records that fail their checks (`damaged`: their sequence stayed
  /// across the read, so no writer was changing them).
  private static func committedRecords(_ files: TableFiles, count: Int) -> (
    records: [(slot: Int, record: IndexRecord)],
    damaged: [(slot: Int, sequence: UInt64, reason: String)]
  ) {
    var records: [(slot: Int, record: IndexRecord)] = []
    var damaged: [(slot: Int, sequence: UInt64, reason: String)] = []
    for slot in 0..<count {
      let before = files.sequence(slot).pointee.load(ordering: .acquiring)
      guard before != 0, before & 3 == 0 else { continue }
      let (record, problem) = IndexRecord.read(slot: slot, from: files.index.base)
      guard files.sequence(slot).pointee.load(ordering: .acquiring) == before else { continue }
      if let record {
        records.append((slot, record))
      } else {
        damaged.append((slot, before, problem ?? "its record is empty"))
      }
    }
    return (records, damaged)
  }

  /// ``TableFiles/bucketProblems(_:)`` for a reader, when no writer runs (a writer
  /// changes the buckets as it commits and evicts; its open checks them).
  private func bucketProblems(_ files: TableFiles, records: [(slot: Int, record: IndexRecord)])
    -> [VerificationReport.Problem]
  {
    guard options.readOnly, !writerIsRunning() else { return [] }
    return files.bucketProblems(
      records.map { .init(slot: $0.slot, idHash: $0.record.idHash, entityID: $0.record.entityID) })
  }

  /// Every entry served now, least recently used first (for a read-only table: in the
  /// order they were written). A reader names each record `verify` calls damaged (once
  /// per record and instance, as a hit of it would): a committed record that fails its
  /// checksum, and a write left unfinished (by verify's rule: it stays so for a second
  /// and no writer runs). It is left out, and a list that dropped it without a word
  /// would pass for a table holding fewer entries.
  public func entries() -> [TableEntry] {
    if options.readOnly {
      var events: [ImageTableEvent] = []
      let entries = withCurrentFiles { files in
        var found = Self.committedRecords(files, count: files.slotCount())
        for slot in 0..<files.slotCount() {
          let sequence = files.sequence(slot).pointee.load(ordering: .acquiring)
          if TableFileLayout.isMidWrite(sequence),
            files.verified[slot].load(ordering: .relaxed) != sequence | TableFiles.failedMark,
            !Self.changes(files.sequence(slot), from: sequence), !writerIsRunning()
          {
            found.damaged.append((slot, sequence, "its write never finished"))
          }
        }
        for damage in found.damaged {
          let failed = damage.sequence | TableFiles.failedMark
          guard files.verified[damage.slot].exchange(failed, ordering: .relaxed) != failed else {
            continue
          }
          events.append(
            .corruptEntry(
              format: format.name, slot: damage.slot, entityID: nil, reason: damage.reason))
        }
        // Named once while they stay the same (a list is asked for again and again).
        let buckets = bucketProblems(files, records: found.records)
        if reportedBucketProblems.withLock({ reported in
          defer { reported = buckets }
          return reported != buckets && !buckets.isEmpty
        }) {
          events.append(
            .lookupBucketsDamaged(format: format.name, problems: buckets, rebuilt: false))
        }
        return found.records
          .sorted { $0.record.writeOrder < $1.record.writeOrder }
          .map {
            TableEntry(
              slot: $0.slot, entityID: $0.record.entityID, sourceVersion: $0.record.sourceVersion,
              width: $0.record.width, height: $0.record.height)
          }
      }
      events.forEach(options.report)
      return entries
    }
    return state.withLock { state in
      state.lruOrder().compactMap { slot in
        guard let record = IndexRecord.read(slot: slot, from: state.files.index.base).0 else {
          return nil
        }
        return TableEntry(
          slot: slot, entityID: record.entityID, sourceVersion: record.sourceVersion,
          width: record.width, height: record.height)
      }
    }
  }

  /// Checks every entry's record and pixels now; corrupt entries become misses.
  /// Problems found when the table was opened are included.
  public func verify() -> VerificationReport {
    var events: [ImageTableEvent] = []
    let report = state.withLock { state in
      let files = state.files
      var report = VerificationReport(checked: 0, corrupt: state.openProblems)
      // A reader checks every record the index holds (a record whose pixels pass the
      // table's end is damage) and the files' lengths; the writer found those at open.
      let count = files.indexSlotCount()
      let lengthProblem = options.readOnly ? files.lengthProblem() : nil
      if let lengthProblem {
        report.corrupt.append(lengthProblem)
        events.append(
          .corruptEntry(
            format: format.name, slot: lengthProblem.slot, entityID: nil,
            reason: lengthProblem.reason))
      }
      let candidates: [Int] = options.readOnly ? Array(0..<count) : state.lruOrder()
      // The committed records read, for a reader's check of the lookup buckets.
      var records: [(slot: Int, record: IndexRecord)] = []
      for slot in candidates {
        let before = files.sequence(slot).pointee.load(ordering: .acquiring)
        if options.readOnly {
          // A reader checks what the slot holds now: nothing (never written, or emptied
          // by the writer), or a write under way in another process, which is damage
          // only when it stays mid-write (no change for a while) with no writer running:
          // a writer kept off the cores for longer is still writing it, and a writer
          // that opens clears what a stopped one left.
          if TableFileLayout.isVacant(before) { continue }
          if TableFileLayout.isMidWrite(before),
            Self.changes(files.sequence(slot), from: before) || writerIsRunning()
          {
            continue
          }
        }
        let (record, problem) = IndexRecord.read(slot: slot, from: files.index.base)
        var reason = problem ?? (record == nil ? "its record is empty" : nil)
        if reason == nil, let record {
          if !(1...layout.width).contains(record.width)
            || !(1...layout.height).contains(record.height)
          {
            reason = "its size \(record.width)x\(record.height) does not fit the slot"
          } else if files.headerSize + (slot + 1) * layout.entryStride
            > Self.fileLength(files.table)
          {
            reason = "the table file is cut short"
          } else {
            reason = files.verify(slot: slot, height: record.height, expected: record.pixelChecksum)
          }
        }
        // A record the writer changed while it was read is not damage.
        if options.readOnly, files.sequence(slot).pointee.load(ordering: .acquiring) != before {
          continue
        }
        report.checked += 1
        if options.readOnly, let record { records.append((slot, record)) }
        if let reason {
          report.corrupt.append(.init(slot: slot, entityID: record?.entityID, reason: reason))
          events.append(
            .corruptEntry(
              format: format.name, slot: slot, entityID: record?.entityID, reason: reason))
          if !options.readOnly { state.remove(slot) }
        } else if let record {
          files.markVerified(slot, sequence: record.sequence)
        }
      }
      report.checked += state.openProblems.count + (lengthProblem == nil ? 0 : 1)
      if options.readOnly {
        let buckets = bucketProblems(files, records: records)
        report.corrupt += buckets.map { problem in
          var named = problem
          named.reason += "; the next render makes the lookup buckets again"
          return named
        }
        if !buckets.isEmpty {
          events.append(
            .lookupBucketsDamaged(format: format.name, problems: buckets, rebuilt: false))
        }
      }
      return report
    }
    events.forEach(options.report)
    return report
  }

  /// How long a reader waits to see a slot's write move on before calling it
  /// unfinished. A write of an entry takes well under a millisecond, but a writer's
  /// thread can be kept off a crowded machine's cores for longer than 100 ms (the churn
  /// test's readers called such slots damaged about one run in three at a load of 9 on
  /// 2 cores); only a slot left mid-write by a writer that stopped stays so for a second.
  static let unfinishedWritePatience = Duration.seconds(1)

  /// Whether the sequence moves on from `sequence` within ``unfinishedWritePatience``.
  static func changes(_ pointer: UnsafeMutablePointer<Atomic<UInt64>>, from sequence: UInt64)
    -> Bool
  {
    let deadline = ContinuousClock.now + unfinishedWritePatience
    while ContinuousClock.now < deadline {
      if pointer.pointee.load(ordering: .acquiring) != sequence { return true }
      usleep(500)
    }
    return pointer.pointee.load(ordering: .acquiring) != sequence
  }

  // MARK: Files

  private func checkWritable(entityID: String, sourceVersion: String, width: Int, height: Int)
    throws(ImageTableError)
  {
    guard !options.readOnly else { throw .readOnly(format: format.name) }
    guard options.protection.allows(format.protectionMode) else {
      throw .protectedDataUnavailable(format: format.name, mode: format.protectionMode)
    }
    let keyBytes = entityID.utf8.count + sourceVersion.utf8.count
    guard !entityID.isEmpty, keyBytes <= TableFileLayout.keyCapacity else {
      throw .keyTooLong(entityID: entityID, bytes: keyBytes, limit: TableFileLayout.keyCapacity)
    }
    guard (1...layout.width).contains(width), (1...layout.height).contains(height) else {
      throw .entryTooLarge(
        format: format.name, width: width, height: height, slotWidth: layout.width,
        slotHeight: layout.height)
    }
  }

  struct Paths {
    var table: String
    var index: String
    var shared: String
    var lock: String
    /// The reader records a shared file made for these files gets (``Options/maxReaders``).
    var maxReaders = SharedFile.defaultReaderCount
  }

  static func reservedLengths(format: ImageFormat, capacity: Int? = nil, headerSize: Int) -> (
    table: Int, index: Int
  ) {
    let capacity = capacity ?? format.maximumCount
    return (
      headerSize + capacity * format.layout.entryStride, TableFileLayout.recordOffset(capacity)
    )
  }

  /// Opens the files as they are, or (for a writer) recreates them when they are
  /// missing, damaged or written for other pixels, reporting why. Files whose format
  /// differs only in ``FormatFingerprint/settingsFields`` keep their entries: a reader
  /// opens them as written, a writer carries the entries over to files with the new
  /// settings (``carryOver(from:format:fingerprint:stored:headerSize:paths:events:)``).
  static func open(
    format: ImageFormat, fingerprint: FormatFingerprint, headerSize: Int, paths: Paths,
    readOnly: Bool, events: inout [ImageTableEvent]
  ) throws(ImageTableError) -> TableFiles {
    let permissions = format.protectionMode.filePermissions
    var status = stat()
    guard lstat(paths.table, &status) == 0 else {
      if readOnly { throw .notATable(path: paths.table, reason: "no such file") }
      return try createFiles(
        format: format, fingerprint: fingerprint, headerSize: headerSize, paths: paths,
        events: &events)
    }
    var table = try MappedFile(
      path: paths.table, create: false, writable: !readOnly, permissions: permissions,
      reservedLength: reservedLengths(format: format, headerSize: headerSize).table)
    let problem: ImageTableEvent
    switch TableHeader.read(from: table.base, length: table.length) {
    case .failure(let failure):
      problem = .unreadableTable(format: format.name, reason: failure.reason)
    case .success(let header):
      let stored =
        header.fingerprint == fingerprint.text
        ? fingerprint : FormatFingerprint(text: header.fingerprint) ?? FormatFingerprint(fields: [])
      let changed = fingerprint.changedPixelFields(from: stored)
      guard changed.isEmpty else {
        if readOnly {
          throw .formatChanged(path: paths.table, format: format.name, changedFields: changed)
        }
        problem = .invalidated(format: format.name, changedFields: changed)
        break
      }
      let storedHeaderSize = TableFileLayout.tableHeaderSize(
        fingerprintBytes: header.fingerprint.utf8.count)
      guard header.headerSize == storedHeaderSize else {
        problem = .unreadableTable(
          format: format.name,
          reason: "field 'headerSize' is \(header.headerSize), not \(storedHeaderSize)")
        break
      }
      guard stored["maximumCount"] == String(header.capacity), header.style == format.style,
        header.width == format.layout.width, header.height == format.layout.height
      else {
        problem = .unreadableTable(
          format: format.name,
          reason: "fields 'capacity', 'style', 'width', 'height' (\(header.capacity), "
            + "\(header.style.rawValue), \(header.width)x\(header.height)) disagree with its fingerprint"
        )
        break
      }
      let reserve = reservedLengths(
        format: format, capacity: header.capacity, headerSize: header.headerSize)
      if header.capacity != format.maximumCount {
        // Mapped for the capacity the files were made for: a writer in another
        // process may grow them that far.
        table = try MappedFile(
          path: paths.table, create: false, writable: !readOnly, permissions: permissions,
          reservedLength: reserve.table)
      }
      if !readOnly { table.setPermissions(permissions) }
      switch openIndex(
        path: paths.index, identity: header.identity, readOnly: readOnly, reserve: reserve.index)
      {
      case .success(let index):
        if !readOnly { index.setPermissions(permissions) }
        let shared = try openShared(
          path: paths.shared, lockPath: paths.lock, identity: header.identity, format: format,
          capacity: header.capacity, readOnly: readOnly, index: index, table: table,
          headerSize: header.headerSize, maxReaders: paths.maxReaders)
        let files = try TableFiles(
          table: table, index: index, shared: shared, identity: header.identity,
          layout: format.layout, headerSize: header.headerSize, readOnly: readOnly)
        guard !readOnly, stored != fingerprint else { return files }
        return try carryOver(
          from: files, format: format, fingerprint: fingerprint, stored: stored,
          headerSize: headerSize, paths: paths, events: &events)
      case .failure(let failure):
        if readOnly { throw .notATable(path: paths.index, reason: "the index \(failure.reason)") }
        problem = .indexRebuilt(format: format.name, reason: failure.reason)
      }
    }
    if readOnly { throw .notATable(path: paths.table, reason: problem.description) }
    events.append(problem)
    return try createFiles(
      format: format, fingerprint: fingerprint, headerSize: headerSize, paths: paths,
      events: &events)
  }

  private static func openIndex(path: String, identity: UInt64, readOnly: Bool, reserve: Int)
    -> Result<MappedFile, HeaderProblem>
  {
    var status = stat()
    guard lstat(path, &status) == 0 else { return .failure(HeaderProblem("was missing")) }
    guard
      let index = try? MappedFile(
        path: path, create: false, writable: !readOnly, permissions: 0o600, reservedLength: reserve)
    else { return .failure(HeaderProblem("could not be opened")) }
    guard index.length >= TableFileLayout.indexHeaderSize,
      index.base.field(0, as: UInt64.self) == TableFileLayout.indexMagic,
      index.base.field(12, as: UInt32.self) == UInt32(TableFileLayout.recordSize),
      index.base.field(24, as: UInt64.self) == identity,
      index.base.field(32, as: UInt64.self) == TableFileLayout.indexHeaderChecksum(index.base)
    else { return .failure(HeaderProblem("belonged to another table or was damaged")) }
    return .success(index)
  }

  /// The shared file of the table with `identity`. A writer creates it when missing or
  /// stale; so does a reader when no writer runs (it takes the writer's lock for that
  /// moment); else the reader waits for the writer to make it. A writer wanting more
  /// reader records than the file has makes it anew when no reader holds one.
  private static func openShared(
    path: String, lockPath: String, identity: UInt64, format: ImageFormat, capacity: Int,
    readOnly: Bool, index: MappedFile, table: MappedFile, headerSize: Int, maxReaders: Int
  ) throws(ImageTableError) -> SharedFile {
    if let shared = try SharedFile.openExisting(
      path: path, identity: identity, capacity: capacity, readOnly: readOnly)
    {
      guard !readOnly, shared.readerCount < maxReaders, shared.supersedeIfUnread() else {
        return shared
      }
      // The writer's scan fills the new file's buckets.
      return try SharedFile.create(
        path: path, identity: identity, capacity: capacity, readerCount: maxReaders)
    }
    if !readOnly {
      return try SharedFile.create(
        path: path, identity: identity, capacity: capacity, readerCount: maxReaders)
    }
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
      if let lock = try? WriterLock(path: lockPath, wait: false) {
        let shared = try SharedFile.create(
          path: path, identity: identity, capacity: capacity, readerCount: maxReaders)
        shared.insertCommitted(index: index, headerSize: headerSize, format: format, table: table)
        withExtendedLifetime(lock) {}
        return shared
      }
      usleep(10_000)
      if let shared = try SharedFile.openExisting(
        path: path, identity: identity, capacity: capacity, readOnly: readOnly)
      {
        return shared
      }
    }
    throw .io(
      path: path, operation: "open",
      message: "the table's writer did not make its shared file within 10 s")
  }

  static func createFiles(
    format: ImageFormat, fingerprint: FormatFingerprint, headerSize: Int, paths: Paths,
    events: inout [ImageTableEvent]
  ) throws(ImageTableError) -> TableFiles {
    let reserve = reservedLengths(format: format, headerSize: headerSize)
    for path in [paths.table, paths.index, paths.shared] where MappedFile.isSymbolicLink(path) {
      throw .symbolicLink(path: path)
    }
    // New inodes: a reader (here or in another process) keeps the old files' pages.
    // Created with O_EXCL|O_NOFOLLOW: a link planted after the unlink is refused.
    unlink(paths.table)
    unlink(paths.index)
    unlink(WriterSummary.path(indexPath: paths.index))
    var generator = SystemRandomNumberGenerator()
    let identity = generator.next() as UInt64
    let index = try createIndex(
      path: paths.index, identity: identity, format: format, reserve: reserve.index)
    let table = try MappedFile(
      path: paths.table, create: true, writable: true,
      permissions: format.protectionMode.filePermissions, reservedLength: reserve.table)
    try table.grow(to: headerSize)
    let layout = format.layout
    TableHeader(
      style: layout.style, width: layout.width, height: layout.height,
      bytesPerRow: layout.bytesPerRow, headerSize: headerSize, entryStride: layout.entryStride,
      capacity: format.maximumCount, identity: identity, fingerprint: fingerprint.text
    ).write(to: table.base)
    let shared = try SharedFile.create(
      path: paths.shared, identity: identity, capacity: format.maximumCount,
      readerCount: paths.maxReaders)
    return try TableFiles(
      table: table, index: index, shared: shared, identity: identity, layout: layout,
      headerSize: headerSize, readOnly: false)
  }

  private static func createIndex(path: String, identity: UInt64, format: ImageFormat, reserve: Int)
    throws(ImageTableError) -> MappedFile
  {
    let index = try MappedFile(
      path: path, create: true, writable: true,
      permissions: format.protectionMode.filePermissions, reservedLength: reserve)
    try index.grow(to: TableFileLayout.indexHeaderSize)
    index.base.setField(0, TableFileLayout.indexMagic)
    index.base.setField(8, TableHeader.version)
    index.base.setField(12, UInt32(TableFileLayout.recordSize))
    index.base.setField(16, UInt64(format.maximumCount))
    index.base.setField(24, identity)
    index.base.setField(32, TableFileLayout.indexHeaderChecksum(index.base))
    // Generation 1, not clean: a writer's session on new files (WriterSummary).
    index.base.setField(WriterSummary.indexGenerationOffset, UInt64(1))
    return index
  }
}

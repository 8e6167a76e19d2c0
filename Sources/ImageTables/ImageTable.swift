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
/// ```swift
/// let table = try ImageTable(format: avatar, directory: cacheURL)
/// try table.write(entityID: "ada.jpg", sourceVersion: "v1", width: 64, height: 64) { canvas in
///   // fill canvas.bytes, canvas.bytesPerRow apart, in canvas.style
/// }
/// let bitmap = table.bitmap(entityID: "ada.jpg", sourceVersion: "v1")
/// ```
public final class ImageTable: @unchecked Sendable {
  // Safety of @unchecked Sendable: all mutable state is inside `state`'s Mutex.

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

    public init(
      readOnly: Bool = false, waitForWriter: Bool = false,
      protection: ProtectionState = .alwaysUnlocked,
      report: @escaping @Sendable (ImageTableEvent) -> Void = { _ in },
      releasesWrittenPages: Bool = false
    ) {
      self.readOnly = readOnly
      self.waitForWriter = waitForWriter
      self.protection = protection
      self.report = report
      self.releasesWrittenPages = releasesWrittenPages
    }
  }

  public let format: ImageFormat
  public let fingerprint: FormatFingerprint
  public let layout: EntryLayout
  public let options: Options
  /// The table file; the index and lock files sit beside it.
  public let tablePath: String
  public let indexPath: String
  let lockPath: String
  let headerSize: Int
  private let writerLock: WriterLock?
  private let state: Mutex<TableState>
  /// Test hook: how entity ids are hashed (a constant makes every id collide).
  let hashEntityID: @Sendable (String) -> UInt64

  /// The files of `formatName` in `directory`: `<name>.table`, `<name>.index`, `<name>.lock`.
  public static func paths(formatName: String, directory: URL) -> (
    table: String, index: String, lock: String
  ) {
    let base = directory.appendingPathComponent(formatName).path
    return (base + ".table", base + ".index", base + ".lock")
  }

  /// Opens the table of `format` in `directory`, creating it if needed.
  ///
  /// A table written for a different fingerprint (any field of the format, or the
  /// processors' identifiers, changed) is recreated empty and reported once.
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
    headerSize = TableFileLayout.tableHeaderSize(fingerprintBytes: fingerprint.text.utf8.count)
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
    var events: [ImageTableEvent] = []
    let files = try Self.openFiles(
      format: format, fingerprint: fingerprint, headerSize: headerSize, tablePath: tablePath,
      indexPath: indexPath, readOnly: options.readOnly, events: &events)
    var initial = TableState(table: files.table, index: files.index)
    initial.scan(
      format: format, layout: layout, headerSize: headerSize, readOnly: options.readOnly,
      hash: hashEntityID, events: &events)
    state = Mutex(initial)
    events.forEach(options.report)
  }

  // MARK: Reading

  /// The entry for `entityID` if it holds `sourceVersion`, else nil; never blocks on
  /// I/O or decoding. The first serve of an entry after the table opened verifies its
  /// pixel checksum; a corrupt entry is reported and is a miss.
  public func bitmap(entityID: String, sourceVersion: String) -> Bitmap? {
    guard options.protection.allows(format.protectionMode) else { return nil }
    let hash = hashEntityID(entityID)
    var event: ImageTableEvent? = nil
    let bitmap = state.withLock { state -> Bitmap? in
      guard let slot = state.find(entityID, hash: hash) else { return nil }
      guard let bitmap = state.slots[slot].bitmap, bitmap.sourceVersion == sourceVersion else {
        return nil
      }
      if options.readOnly,
        IndexRecord.sequence(slot: slot, in: state.index.base) != state.slots[slot].sequence
      {
        state.detach(slot)
        state.release(slot, readOnly: true)
        return nil
      }
      if !state.slots[slot].verified {
        if let problem = state.verifyPixels(slot, layout: layout, headerSize: headerSize) {
          event = .corruptEntry(
            format: format.name, slot: slot, entityID: entityID, reason: problem)
          state.remove(slot, readOnly: options.readOnly)
          return nil
        }
        state.slots[slot].verified = true
      }
      state.touch(slot)
      return bitmap
    }
    if let event { options.report(event) }
    return bitmap
  }

  /// Whether an entry for `entityID` holds `sourceVersion` (without verifying it).
  public func contains(entityID: String, sourceVersion: String) -> Bool {
    guard options.protection.allows(format.protectionMode) else { return false }
    let hash = hashEntityID(entityID)
    return state.withLock { state in
      guard let slot = state.find(entityID, hash: hash) else { return false }
      return state.slots[slot].bitmap?.sourceVersion == sourceVersion
    }
  }

  // MARK: Writing

  /// Writes the entry for `entityID` at `sourceVersion`, drawn by `draw` straight into
  /// the table's bytes, and returns it. It replaces any entry for the same id only once
  /// complete; until then readers see the old one (or a miss).
  ///
  /// `width` and `height` are the size drawn, at most the format's pixel size (a small
  /// image may be stored smaller than the slot). If `draw` throws, nothing is stored.
  @discardableResult
  public func write(
    entityID: String, sourceVersion: String, width: Int? = nil, height: Int? = nil,
    draw: (borrowing EntryCanvas) throws -> Void
  ) throws -> Bitmap {
    let width = width ?? layout.width
    let height = height ?? layout.height
    try checkWritable(
      entityID: entityID, sourceVersion: sourceVersion, width: width, height: height)
    let reservation = try state.withLock { state throws(ImageTableError) in
      try state.reserve(format: format, layout: layout, headerSize: headerSize)
    }
    let canvas = EntryCanvas(
      bytes: UnsafeMutableRawBufferPointer(
        start: reservation.table.base + headerSize + reservation.slot * layout.entryStride,
        count: layout.bytesPerRow * height),
      bytesPerRow: layout.bytesPerRow, width: width, height: height, style: layout.style)
    do {
      try draw(canvas)
    } catch {
      state.withLock { $0.abandon(reservation) }
      throw error
    }
    let checksum = Checksum.hash(UnsafeRawBufferPointer(canvas.bytes))
    let bitmap = Bitmap(
      base: UnsafeRawPointer(canvas.bytes.baseAddress!), mapping: reservation.table, width: width,
      height: height, bytesPerRow: layout.bytesPerRow, style: layout.style, entityID: entityID,
      sourceVersion: sourceVersion)
    let hash = hashEntityID(entityID)
    state.withLock { state in
      state.commit(reservation, bitmap: bitmap, hash: hash, checksum: checksum)
    }
    if options.releasesWrittenPages {
      reservation.table.releasePages(
        offset: headerSize + reservation.slot * layout.entryStride, length: canvas.bytes.count)
    }
    return bitmap
  }

  /// Removes the entry for `entityID`; a live ``Bitmap`` of it stays valid. Returns
  /// whether there was one.
  @discardableResult
  public func delete(entityID: String) -> Bool {
    guard !options.readOnly else { return false }
    let hash = hashEntityID(entityID)
    return state.withLock { state in
      guard let slot = state.find(entityID, hash: hash) else { return false }
      state.remove(slot, readOnly: false)
      return true
    }
  }

  /// Removes every entry. Live bitmaps stay valid: the files are replaced, not
  /// truncated, and the old mapping lives as long as they do.
  public func reset() throws(ImageTableError) {
    guard !options.readOnly else { throw .readOnly(format: format.name) }
    var events: [ImageTableEvent] = []
    try state.withLock { state throws(ImageTableError) in
      let files = try Self.createFiles(
        format: format, fingerprint: fingerprint, headerSize: headerSize, tablePath: tablePath,
        indexPath: indexPath, events: &events)
      state = TableState(
        table: files.table, index: files.index,
        generation: state.generation + 1)
    }
  }

  /// Writes dirty pages back to disk (asynchronously).
  public func flush() {
    state.withLock { state in
      state.table.flush()
      state.index.flush()
    }
  }

  // MARK: Looking

  public var stats: TableStats {
    state.withLock { state in
      TableStats(
        format: format.name, entries: state.liveCount, capacity: format.maximumCount,
        allocatedEntries: state.slots.count, bytesPerEntry: layout.entryStride,
        rawBytesPerEntry: layout.width * layout.height * layout.style.bytesPerPixel,
        fileBytes: state.table.length + state.index.length)
    }
  }

  /// Every entry served now, least recently used first.
  public func entries() -> [TableEntry] {
    state.withLock { state in
      state.lruOrder().compactMap { slot in
        state.slots[slot].bitmap.map {
          TableEntry(
            slot: slot, entityID: $0.entityID, sourceVersion: $0.sourceVersion, width: $0.width,
            height: $0.height)
        }
      }
    }
  }

  /// Checks every entry's record and pixels now; corrupt entries become misses.
  /// Problems found when the table was opened are included.
  public func verify() -> VerificationReport {
    var events: [ImageTableEvent] = []
    let report = state.withLock { state in
      var report = VerificationReport(checked: state.liveCount, corrupt: state.openProblems)
      for slot in state.lruOrder() {
        let entityID = state.slots[slot].bitmap?.entityID
        let (record, problem) = IndexRecord.read(slot: slot, from: state.index.base)
        let reason =
          problem ?? (record == nil ? "its record is empty" : nil)
          ?? state.verifyPixels(slot, layout: layout, headerSize: headerSize)
        if let reason {
          report.corrupt.append(.init(slot: slot, entityID: entityID, reason: reason))
          events.append(
            .corruptEntry(format: format.name, slot: slot, entityID: entityID, reason: reason))
          state.remove(slot, readOnly: options.readOnly)
        } else {
          state.slots[slot].verified = true
        }
      }
      report.checked += state.openProblems.count
      return report
    }
    events.forEach(options.report)
    return report
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

  struct Files {
    var table: MappedFile
    var index: MappedFile
    var identity: UInt64
  }

  static func reservedLengths(format: ImageFormat, headerSize: Int) -> (table: Int, index: Int) {
    (
      headerSize + format.maximumCount * format.layout.entryStride,
      TableFileLayout.recordOffset(format.maximumCount)
    )
  }

  private static func openFiles(
    format: ImageFormat, fingerprint: FormatFingerprint, headerSize: Int, tablePath: String,
    indexPath: String, readOnly: Bool, events: inout [ImageTableEvent]
  ) throws(ImageTableError) -> Files {
    let reserve = reservedLengths(format: format, headerSize: headerSize)
    let permissions = format.protectionMode.filePermissions
    let exists = FileManager.default.fileExists(atPath: tablePath)
    if !exists {
      if readOnly { throw .notATable(path: tablePath, reason: "no such file") }
      return try createFiles(
        format: format, fingerprint: fingerprint, headerSize: headerSize, tablePath: tablePath,
        indexPath: indexPath, events: &events)
    }
    let table = try MappedFile(
      path: tablePath, create: false, writable: !readOnly, permissions: permissions,
      reservedLength: reserve.table)
    let problem: ImageTableEvent?
    switch TableHeader.read(from: table.base, length: table.length) {
    case .failure(let failure):
      problem = .unreadableTable(format: format.name, reason: failure.reason)
    case .success(let header) where header.fingerprint != fingerprint.text:
      let stored = FormatFingerprint(text: header.fingerprint) ?? FormatFingerprint(fields: [])
      problem = .invalidated(
        format: format.name, changedFields: fingerprint.changedFields(from: stored))
    case .success(let header):
      if !readOnly { table.setPermissions(permissions) }
      let index = try openIndex(
        path: indexPath, identity: header.identity, format: format, readOnly: readOnly,
        reserve: reserve.index, events: &events)
      return Files(table: table, index: index, identity: header.identity)
    }
    if readOnly, let problem {
      throw .notATable(path: tablePath, reason: problem.description)
    }
    if let problem { events.append(problem) }
    return try createFiles(
      format: format, fingerprint: fingerprint, headerSize: headerSize, tablePath: tablePath,
      indexPath: indexPath, events: &events)
  }

  private static func openIndex(
    path: String, identity: UInt64, format: ImageFormat, readOnly: Bool, reserve: Int,
    events: inout [ImageTableEvent]
  ) throws(ImageTableError) -> MappedFile {
    let permissions = format.protectionMode.filePermissions
    var reason = "was missing"
    if FileManager.default.fileExists(atPath: path) {
      let index = try MappedFile(
        path: path, create: false, writable: !readOnly, permissions: permissions,
        reservedLength: reserve)
      if index.length >= TableFileLayout.indexHeaderSize,
        index.base.field(0, as: UInt64.self) == TableFileLayout.indexMagic,
        index.base.field(12, as: UInt32.self) == UInt32(TableFileLayout.recordSize),
        index.base.field(24, as: UInt64.self) == identity
      {
        if !readOnly { index.setPermissions(permissions) }
        return index
      }
      reason = "belonged to another table or was damaged"
    }
    events.append(.indexRebuilt(format: format.name, reason: reason))
    if readOnly { throw .notATable(path: path, reason: "the index \(reason)") }
    unlink(path)
    return try createIndex(path: path, identity: identity, format: format, reserve: reserve)
  }

  static func createFiles(
    format: ImageFormat, fingerprint: FormatFingerprint, headerSize: Int, tablePath: String,
    indexPath: String, events: inout [ImageTableEvent]
  ) throws(ImageTableError) -> Files {
    let reserve = reservedLengths(format: format, headerSize: headerSize)
    // New inodes: a reader (here or in another process) keeps the old files' pages.
    unlink(tablePath)
    unlink(indexPath)
    var generator = SystemRandomNumberGenerator()
    let identity = generator.next() as UInt64
    let index = try createIndex(
      path: indexPath, identity: identity, format: format, reserve: reserve.index)
    let table = try MappedFile(
      path: tablePath, create: true, writable: true,
      permissions: format.protectionMode.filePermissions, reservedLength: reserve.table)
    try table.grow(to: headerSize)
    let layout = format.layout
    TableHeader(
      style: layout.style, width: layout.width, height: layout.height,
      bytesPerRow: layout.bytesPerRow, headerSize: headerSize, entryStride: layout.entryStride,
      capacity: format.maximumCount, identity: identity, fingerprint: fingerprint.text
    ).write(to: table.base)
    return Files(table: table, index: index, identity: identity)
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
    return index
  }
}

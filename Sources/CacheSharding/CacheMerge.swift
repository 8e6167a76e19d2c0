import Foundation
import ImageTables
import Locking

/// Merges the caches of a sharded render into one (`imgtool merge`).
///
/// Every input must hold the same formats, each with the same fingerprint (and the
/// output's, when it exists, too): anything else is refused, naming the format and
/// the fields that differ. Each entity is copied once: the same entity at the same
/// version in two inputs is taken once, at two versions it is an error. An input's
/// entry replaces the output's entry of the same entity; the output's other entries
/// are kept. More entities than a format's `maximumCount` is an error, never a silent
/// drop. The new tables are built in a folder beside the output, written to disk and
/// moved in with one atomic exchange, while the output's writer locks are held: the
/// output is complete or unchanged.
///
/// ```swift
/// let report = try CacheMerge.merge(
///   [URL(fileURLWithPath: "shard-0"), URL(fileURLWithPath: "shard-1")],
///   into: URL(fileURLWithPath: ".imgtool-cache"))
/// print(report.entriesWritten, report.seconds)
/// ```
public enum CacheMerge {
  /// How a merge waits.
  public struct Options: Sendable {
    /// When another process writes to the output, wait for it rather than fail.
    public var waitForWriters: Bool

    public init(waitForWriters: Bool = false) {
      self.waitForWriters = waitForWriters
    }
  }

  /// Merges the caches in `inputs` into `output` (made if missing). Throws, with the
  /// output unchanged, when the inputs do not fit together.
  public static func merge(_ inputs: [URL], into output: URL, options: Options = Options())
    throws(MergeError) -> MergeReport
  {
    let clock = ContinuousClock.now
    guard !inputs.isEmpty else { throw .notACache(path: output.path, reason: "no inputs given") }
    let output = output.standardizedFileURL
    let names = try formatNames(of: inputs)
    let outputExists = try checkOutput(output)
    let outputNames = outputExists ? try tableNames(in: output) : []
    // Hold every writer lock of the output until its new files are in place.
    var locks: [TableWriterLock] = []
    if outputExists {
      for name in Set(names + outputNames).sorted() {
        do {
          locks.append(
            try TableWriterLock(
              formatName: name, directory: output, wait: options.waitForWriters))
        } catch {
          if case .lockedByAnotherWriter(let path) = error { throw .outputBusy(path: path) }
          if case .lockedInThisProcess(let path, _) = error { throw .outputBusy(path: path) }
          throw .unreadableTable(
            path: ImageTable.paths(formatName: name, directory: output).lock, error: error)
        }
      }
    }
    // Every refusal comes before anything is written.
    var plans: [(source: FormatSources, plan: MergePlan)] = []
    for name in names {
      let source = try FormatSources(name: name, inputs: inputs, output: output)
      let plan = try MergePlan(
        format: name, inputs: zip(inputs, source.inputs).map { ($0.path, $1.table.entries()) },
        output: source.output?.table.entries() ?? [])
      // Entries found damaged while listing them (a record failing its checksum) are
      // left out of the lists: refuse rather than drop them, as at opening.
      for table in source.inputs + (source.output.map { [$0] } ?? []) {
        try table.events.refuseDamage(format: name, path: table.path)
      }
      guard plan.picks.count <= source.format.maximumCount else {
        throw .tooManyEntries(
          format: name, count: plan.picks.count, maximumCount: source.format.maximumCount)
      }
      plans.append((source, plan))
    }
    let staging = try StagingFolder(beside: output)
    var report = MergeReport(
      formats: [], bytesCopied: 0, seconds: 0, atomic: true, createdOutput: !outputExists)
    do throws(MergeError) {
      for (source, plan) in plans {
        report.bytesCopied += try write(plan, from: source, into: staging.url)
        report.formats.append(
          .init(
            name: source.name, entries: plan.picks.count, fromInputs: plan.fromInputs,
            duplicates: plan.duplicates, keptFromOutput: plan.keptFromOutput))
      }
      if outputExists {
        try linkUnmergedFiles(of: output, into: staging.url, merged: Set(names))
      }
      try staging.synchronize()
      if try !staging.moveIntoPlace(destinationExists: outputExists) {
        try moveTablesOneByOne(names, from: staging.url, into: output)
        report.atomic = false
      }
    } catch {
      staging.remove()
      throw error
    }
    staging.remove()
    withExtendedLifetime(locks) {}
    report.seconds = (ContinuousClock.now - clock).seconds
    return report
  }

  /// The format names every input holds; they must be the same in all.
  static func formatNames(of inputs: [URL]) throws(MergeError) -> [String] {
    var reference: (path: String, names: [String])? = nil
    for input in inputs {
      var isFolder: ObjCBool = false
      guard FileManager.default.fileExists(atPath: input.path, isDirectory: &isFolder),
        isFolder.boolValue
      else { throw .notACache(path: input.path, reason: "no such folder") }
      let names = try tableNames(in: input)
      guard !names.isEmpty else {
        throw .notACache(path: input.path, reason: "it holds no tables (*.table)")
      }
      if let reference {
        if let missing = reference.names.first(where: { !names.contains($0) }) {
          throw .formatMissing(format: missing, missingFrom: input.path, presentIn: reference.path)
        }
        if let extra = names.first(where: { !reference.names.contains($0) }) {
          throw .formatMissing(format: extra, missingFrom: reference.path, presentIn: input.path)
        }
      } else {
        reference = (input.path, names)
      }
    }
    return reference?.names ?? []
  }

  static func tableNames(in folder: URL) throws(MergeError) -> [String] {
    try StagingFolder.names(in: folder).filter { $0.hasSuffix(".table") && !$0.hasPrefix(".") }
      .map { String($0.dropLast(".table".count)) }
  }

  /// Whether the output exists; it must be a folder of plain files.
  private static func checkOutput(_ output: URL) throws(MergeError) -> Bool {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: output.path, isDirectory: &isFolder) else {
      return false
    }
    guard isFolder.boolValue else {
      throw .notACache(path: output.path, reason: "it is a file; give a folder to merge into")
    }
    for name in try StagingFolder.names(in: output) {
      var isSubfolder: ObjCBool = false
      _ = FileManager.default.fileExists(
        atPath: output.appendingPathComponent(name).path, isDirectory: &isSubfolder)
      if isSubfolder.boolValue {
        throw .notACache(
          path: output.path,
          reason: "it holds the folder '\(name)'; a cache holds only table files")
      }
    }
    return true
  }

  /// Copies the planned entries into a new table of the format in `folder`; returns the
  /// bytes copied.
  private static func write(_ plan: MergePlan, from source: FormatSources, into folder: URL)
    throws(MergeError) -> Int
  {
    let processors = source.fingerprint.dictionary["processors"] ?? ""
    let target: ImageTable
    do {
      target = try ImageTable(
        format: source.format,
        processorIdentifiers: processors.isEmpty ? [] : processors.components(separatedBy: " | "),
        directory: folder, options: .init(releasesWrittenPages: true))
    } catch {
      throw .unreadableTable(path: folder.path, error: error)
    }
    guard target.fingerprint == source.fingerprint else {
      throw .formatDiffers(
        format: source.name, path: folder.path, reference: source.inputs[0].path,
        fields: target.fingerprint.changedFields(from: source.fingerprint))
    }
    var bytes = 0
    for pick in plan.picks {
      let from = pick.input.map { source.inputs[$0] } ?? source.output!
      guard
        let bitmap = from.table.bitmap(entityID: pick.entityID, sourceVersion: pick.sourceVersion)
      else {
        throw .corruptEntry(
          format: source.name, path: from.path, entityID: pick.entityID,
          reason: from.events.problem(of: pick.entityID)?.reason
            ?? "it changed or went while being read")
      }
      do {
        try target.write(
          entityID: pick.entityID, sourceVersion: pick.sourceVersion, width: bitmap.width,
          height: bitmap.height
        ) { canvas in
          canvas.bytes.copyMemory(from: bitmap.bytes)
        }
      } catch let error as ImageTableError {
        throw .unreadableTable(path: target.tablePath, error: error)
      } catch {
        throw .io(path: target.tablePath, operation: "write", message: "\(error)")
      }
      bytes += bitmap.bytes.count
    }
    return bytes
  }

  /// Hard-links into `staging` what the output holds besides the merged tables' files,
  /// and the merged tables' lock files, so the exchanged folder keeps them (the same
  /// lock files: a writer waiting on one gets the new table). A merged table's `.shared`
  /// file is its staging one, made with its new table and index: the old one belongs to
  /// the old files, which readers that had them open go on reading.
  private static func linkUnmergedFiles(of output: URL, into staging: URL, merged: Set<String>)
    throws(MergeError)
  {
    for name in try StagingFolder.names(in: output) {
      let base = (name as NSString).deletingPathExtension
      let ext = (name as NSString).pathExtension
      if merged.contains(base), ["table", "index", "shared"].contains(ext) { continue }
      try StagingFolder.link(
        output.appendingPathComponent(name), to: staging.appendingPathComponent(name))
    }
  }

  /// Where exchanging folders is not supported: each table's index, its table, then the
  /// shared file made with them.
  private static func moveTablesOneByOne(_ names: [String], from staging: URL, into output: URL)
    throws(MergeError)
  {
    for name in names {
      let from = ImageTable.paths(formatName: name, directory: staging)
      let to = ImageTable.paths(formatName: name, directory: output)
      let shared = (
        staging.appendingPathComponent(name + ".shared").path,
        output.appendingPathComponent(name + ".shared").path
      )
      for (source, target) in [(from.index, to.index), (from.table, to.table), shared] {
        guard rename(source, target) == 0 else {
          throw .io(path: target, operation: "rename", message: String(cString: strerror(errno)))
        }
      }
    }
    try StagingFolder.fsync(output.path, directory: true)
  }
}

/// One format's tables in the inputs and the output, opened read-only, checked to
/// share one fingerprint.
struct FormatSources {
  struct Source {
    var path: String
    var table: ImageTable
    var events: EventLog

  }

  var name: String
  var inputs: [Source]
  var output: Source?
  var format: ImageFormat { inputs[0].table.format }
  var fingerprint: FormatFingerprint { inputs[0].table.fingerprint }

  init(name: String, inputs: [URL], output outputFolder: URL) throws(MergeError) {
    self.name = name
    var opened: [Source] = []
    for folder in inputs {
      opened.append(try Self.open(name, in: folder))
    }
    self.inputs = opened
    let outputTable = ImageTable.paths(formatName: name, directory: outputFolder).table
    output =
      FileManager.default.fileExists(atPath: outputTable)
      ? try Self.open(name, in: outputFolder) : nil
    let reference = opened[0]
    for other in opened.dropFirst() + (output.map { [$0] } ?? [])
    where other.table.fingerprint != reference.table.fingerprint {
      throw .formatDiffers(
        format: name, path: other.path, reference: reference.path,
        fields: other.table.fingerprint.changedFields(from: reference.table.fingerprint))
    }
  }

  private static func open(_ name: String, in folder: URL) throws(MergeError) -> Source {
    let path = ImageTable.paths(formatName: name, directory: folder).table
    let events = EventLog()
    do {
      let table = try ImageTable(
        existingTableAt: path,
        options: .init(readOnly: true, report: { event in events.append(event) }))
      // Entries found damaged on opening are not listed: refuse rather than drop them.
      try events.refuseDamage(format: name, path: folder.path)
      return Source(path: folder.path, table: table, events: events)
    } catch let error as MergeError {
      throw error
    } catch let error as ImageTableError {
      throw .unreadableTable(path: path, error: error)
    } catch {
      throw .io(path: path, operation: "open", message: "\(error)")
    }
  }
}

/// What a table reported while it was read, to name why an entry was a miss.
final class EventLog: Sendable {
  private let events = Lock<[ImageTableEvent]>([])

  func append(_ event: ImageTableEvent) { events.withLock { $0.append(event) } }

  /// Throws when the table named damage: an entry left out of its list, or lookup
  /// buckets that may hide one.
  func refuseDamage(format: String, path: String) throws(MergeError) {
    if let problem = problem(of: nil) {
      throw .corruptEntry(
        format: format, path: path, entityID: problem.entityID, reason: problem.reason)
    }
    let buckets = events.withLock { events in
      events.lazy.compactMap { event -> [VerificationReport.Problem]? in
        if case .lookupBucketsDamaged(_, let problems, false) = event { return problems }
        return nil
      }.last
    }
    if let buckets {
      throw .lookupBucketsDamaged(
        format: format, path: path,
        problems: buckets.map(\.description).joined(separator: "; "))
    }
  }

  /// Why the entry of `entityID` was a miss, if the table said (nil: why any entry was).
  func problem(of entityID: String?) -> (entityID: String?, reason: String)? {
    events.withLock { events in
      for case .corruptEntry(_, _, let id, let reason) in events.reversed()
      where entityID == nil || id == entityID {
        return (id, reason)
      }
      return nil
    }
  }
}

extension Duration {
  var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}

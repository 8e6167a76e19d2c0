import CacheSharding
import Foundation
import ImageCaching
import ImageTables
import ImageToolManifest
import Locking
import Vips

/// `imgtool render --family NAME PATH...`: every photo into every format of a family.
public struct RenderCommand: Command {
  public init() {}

  static let abstract = "Render photos into every format of a family, one decode each."

  /// The name and abstract alone, without building the spec.
  public var listing: (name: String, abstract: String) { ("render", Self.abstract) }

  public var spec: CommandSpec {
    CommandSpec(
      name: "render",
      abstract: Self.abstract,
      discussion: Self.discussion(),
      options: [
        .init(
          "family", value: "name", help: "The family to render (see 'imgtool manifest').",
          required: true),
        .init("force", help: "Redraw entries that are up to date."),
        .init("jobs", value: "n", help: "Photos at once (default: the number of cores)."),
        .init("wait", help: "If another process is writing the cache, wait for it to finish."),
        .init(
          "quiet",
          help: "No progress lines; the summary is still printed (--json for one to parse)."),
        .init("json", help: "Print the summary as one JSON object."),
        .init("sheet", value: "file", help: "Also write a contact sheet of the family (.png)."),
        .init(
          "shard", value: "I/N",
          help: "Render only shard I of N (by a stable hash of the entity id); env/N takes I "
            + "from JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or AWS_BATCH_JOB_ARRAY_INDEX."),
        FailOnOption.spec,
        DecodeTimeoutOption.spec,
        DecodeMemoryOption.spec,
      ] + URLOptions.specs + CacheOptions.specs,
      arguments: [
        .init(
          "path", help: "Photos, folders of photos, and http:// or https:// URLs of photos.",
          repeats: true, optional: true)
      ]
    )
  }

  /// Help's paragraph, with the extensions a walk picks up (all of them: this loads
  /// libvips's trusted modules, so it is made only when help is shown).
  static func discussion() -> String {
    let suffixes = RenderInputs.imageExtensions.sorted().map { "." + $0 }
    return """
      Walks the files and folders given (folders recursively, picking the files whose \
      extension a trusted loader of this libvips declares: \
      \(suffixes.joined(separator: " ")); hidden files and folders, whose names start \
      with a dot, are named as left out, and render when named themselves; files of a \
      format only a blocked loader reads, such as .bmp and .svg, are named as left out \
      with why). Each photo's \
      entity id is its path relative to \
      the folder given, and its source version a hash of its bytes, so entries that are \
      up to date are skipped (--force redoes them). Each photo is decoded once, shrunk on \
      load only as far as the family allows, and every format's pipeline resamples once \
      from that, in the photo's own coordinates. A bad \
      photo is named with its reason and the others go on; the exit status is then 1. \
      When every photo is up to date, the cache is only read (no lock, no write); \
      when another process is writing the family's tables, nothing is done and the exit \
      status is 75, unless --wait waits for it. A \
      format keeps at most its maximumCount photos of a render: the first ones in the \
      order found (paths as given, folders walked in name order), a photo that fails \
      taking no place; the rest are left out \
      of it, counted and warned about, rather than rendered over the others on every run, \
      so a render of an unchanged folder writes nothing. Room for this render's photos \
      evicts the least recently used entries of earlier ones; the summary counts them. \
      Raising maximumCount keeps every entry a table holds.

      \(URLOptions.discussion)
      """
  }

  struct Outcome: Sendable {
    var written = 0
    var skipped = false
    var failure: String?
    /// The photo fits no format of the family (each keeps fewer): nothing to do.
    var leftOut = false
    /// A URL's: the body bytes downloaded, the HTTP status of a refused request, and
    /// whether the server answered 304 Not Modified.
    var downloaded = 0
    var httpStatus: Int?
    var notModified = false
    /// A failure libvips's shared error buffer may have mixed another's message into:
    /// tried again alone at the end (not a download's).
    var retryAlone = true
  }

  /// Which formats of the family each photo goes into: format F takes the first
  /// `maximumCount` of F photos in the order found, so that a render of more photos
  /// than F keeps never evicts its own photos (and renders them again next time, LRU
  /// under a cyclic scan). The rest are left out of F and counted. A photo that failed
  /// (refused, timed out, unreadable) takes no place: the next one in the order found
  /// takes it (``markFailed(_:)``).
  struct Placement {
    /// The family's formats, in configuration order, with how many entries each keeps.
    var formats: [(name: String, maximumCount: Int)]
    /// Each input's position in the order found, by path.
    var positions: [String: Int]
    var count: Int
    /// The positions of the inputs that failed.
    private(set) var failed: Set<Int> = []
    /// Each position's place among the inputs that did not fail before it.
    private var places: [Int]

    init(_ inputs: [RenderInputs.Input], formats names: [String], cache: ImageCache) {
      formats = names.map { ($0, cache.formats[$0]?.maximumCount ?? Int.max) }
      positions = Dictionary(
        inputs.enumerated().map { ($1.path, $0) }, uniquingKeysWith: { first, _ in first })
      count = inputs.count
      places = Array(0..<inputs.count)
    }

    /// Gives up the places of the inputs at `paths`, which failed: each later input
    /// moves up one place per failure before it.
    mutating func markFailed(_ paths: some Sequence<String>) {
      failed.formUnion(paths.compactMap { positions[$0] })
      var before = 0
      for position in places.indices {
        places[position] = position - before
        if failed.contains(position) { before += 1 }
      }
    }

    /// The formats `input` is rendered into (none: it fits no format of the family).
    func formats(for input: RenderInputs.Input) -> [String] {
      let position = positions[input.path] ?? 0
      let place = places.indices.contains(position) ? places[position] : position
      return formats.filter { place < $0.maximumCount }.map(\.name)
    }

    /// Whether a table of the family may have to evict during the render: it cannot
    /// hold what it holds and every photo it takes.
    func mayEvict(_ cache: ImageCache) -> Bool {
      formats.contains { format in
        let held = cache.table(format: format.name)?.stats.entries ?? 0
        return held + min(count, format.maximumCount) > format.maximumCount
      }
    }

    /// How many of the photos that did not fail format `name` leaves out.
    func leftOut(_ name: String) -> Int {
      max(0, count - failed.count - (formats.first { $0.name == name }?.maximumCount ?? Int.max))
    }
  }

  public func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> Int32 {
    let console = context.console
    guard let family = arguments.value("family") else {
      throw CommandLineError.missingOption(option: "--family", valueName: "name")
    }
    let jobs = try arguments.integer(
      "jobs", in: 1...256, default: ProcessInfo.processInfo.activeProcessorCount)
    let shard = try Self.shard(arguments)
    _ = try FailOnOption.level(arguments)  // a bad level is named before any work
    _ = try DecodeTimeoutOption.limit(arguments)  // and a bad limit
    _ = try DecodeMemoryOption.limits(arguments)  // and a bad memory limit
    let manifest = try CacheOptions.manifest(arguments)
    guard !manifest.formats(family: family).isEmpty else {
      let families = manifest.families.joined(separator: ", ")
      throw CommandLineError.invalidValue(
        option: "--family", value: family,
        reason: "\(manifest.origin) has the families: \(families)")
    }
    let list: URLList?
    do {
      list = try arguments.value("urls").map(URLList.read)
    } catch {
      // The command line named a list that cannot be used: nothing was done.
      console.err("imgtool: \(error)")
      return ExitCode.usage
    }
    guard !arguments.positionals.isEmpty || list != nil else {
      throw CommandLineError.missingArgument(name: "path")
    }
    let found = RenderInputs(
      paths: arguments.positionals, urls: list?.entries ?? [], shard: shard)
    let urls = try URLOptions(arguments, inputs: found.inputs)
    for note in found.notes {
      console.err("imgtool: render: left out: \(note.path): \(note.reason)")
    }
    for folder in found.emptyFolders {
      console.err(
        "imgtool: render: \(folder) holds no photos: no file in it or its subfolders has "
          + "an image extension (`imgtool render --help` lists them)")
    }
    // Nothing found at all (before any shard is taken: a shard may rightly get none):
    // the wrong folder, most likely. Refused before any table is made.
    guard found.foundBeforeShard > 0 else {
      for problem in found.problems {
        console.err("imgtool: render: \(problem.path): \(problem.error)")
      }
      let given = arguments.positionals + (arguments.value("urls").map { ["--urls \($0)"] } ?? [])
      console.err(
        "imgtool: render: no photo to render in " + given.joined(separator: ", ")
          + "; nothing was written")
      return ExitCode.failure
    }
    if let sheet = arguments.value("sheet") {
      guard ["png", "jpg", "jpeg", "webp"].contains((sheet as NSString).pathExtension.lowercased())
      else {
        throw CommandLineError.invalidValue(
          option: "--sheet", value: sheet,
          reason: "the extension must be .png, .jpg, .jpeg or .webp")
      }
      // Before the render, not after it.
      try OutputFile.check(sheet, option: "--sheet")
    }
    let force = arguments.flag("force")
    let start = ContinuousClock.now
    // Nothing to draw needs no writer: look read-only first (no lock, nothing written),
    // so an up-to-date render works on a read-only cache and beside another writer.
    // (A sheet is drawn from the tables the render opens: that path writes it.)
    if !force, arguments.value("sheet") == nil,
      let tables = await Self.upToDateTables(
        found.inputs, family: family, jobs: jobs, arguments, context, urls: urls)
    {
      // Photos past what the family keeps are left out of its formats (prefixes of
      // the order found): those left out of every one are past the largest.
      let leftOut = tables.map(\.leftOut).min() ?? 0
      let summary = Summary(
        family: family, shard: shard, photos: found.inputs.count + found.problems.count,
        rendered: 0,
        upToDate: found.inputs.count - leftOut, failed: found.problems, entriesWritten: 0,
        seconds: ProgressReporter.seconds(ContinuousClock.now - start), tables: tables,
        manifest: manifest.origin, leftOut: leftOut, downloaded: urls?.downloadedInLook)
      summary.print(to: console, json: arguments.flag("json"))
      return found.problems.isEmpty ? ExitCode.success : ExitCode.failure
    }
    let cache: ImageCache
    do {
      // Only the family's tables: a render of one family leaves the others alone.
      (_, cache) = try CacheOptions.open(
        arguments, context: context, workers: jobs, batch: true, family: family,
        waitForWriter: false)
    } catch CacheError.table(_, .lockedByAnotherWriter(let path)) {
      guard arguments.flag("wait") else {
        console.err(
          "imgtool: \(path): another process is writing this cache; run again with --wait "
            + "to wait for it, or render into another --cache")
        return ExitCode.busy
      }
      // Say why nothing happens yet, then wait for the other writer.
      console.err("imgtool: \(path): another process is writing this cache; waiting for it")
      (_, cache) = try CacheOptions.open(
        arguments, context: context, workers: jobs, batch: true, family: family,
        waitForWriter: true)
    }
    // Photos run side by side: give each libvips pipeline its share of the cores,
    // rather than every pipeline a thread per core.
    Vips.concurrency = max(1, ProcessInfo.processInfo.activeProcessorCount / jobs)
    let names = cache.formatNames(family: family)
    var placement = Placement(found.inputs, formats: names, cache: cache)
    let urlRender = urls?.render(cache: cache, formats: names)
    // What each table held, to count what this render evicted.
    let before = Dictionary(
      uniqueKeysWithValues: names.compactMap { name in
        cache.table(format: name).map { (name, Set($0.entries().map(\.entityID))) }
      })
    let progress = ProgressReporter(
      total: found.inputs.count, console: console,
      quiet: arguments.flag("quiet") || arguments.flag("json"))
    var failed = found.problems
    var written = 0
    var rendered: [RenderInputs.Input] = []
    var skipped = 0
    var leftOut = 0
    var downloaded = 0
    var failedURLs: [String: Int?] = [:]
    // The formats each input was given so far (a failure's freed place gives a later
    // input more), the inputs recorded, and those that failed.
    var given: [String: Set<String>] = [:]
    var recorded: Set<String> = []
    var skippedPaths: Set<String> = []
    var renderedPaths: Set<String> = []
    var failedPaths: Set<String> = []
    // An input given a freed place after it was recorded is counted once: rendered if it
    // wrote anything, and a failure there is named but frees no place of its own.
    func record(_ input: RenderInputs.Input, _ outcome: Outcome) {
      let again = !recorded.insert(input.path).inserted
      downloaded += outcome.downloaded
      if let failure = outcome.failure {
        failed.append((input.path, failure))
        if input.url != nil { failedURLs[input.path] = outcome.httpStatus }
        if !again {
          failedPaths.insert(input.path)
          progress.finished(input.path, "failed: \(failure)")
        }
      } else if outcome.leftOut {
        leftOut += 1
        progress.finished(input.path, "left out: the family's tables keep fewer photos")
      } else if outcome.skipped {
        if !again {
          skipped += 1
          skippedPaths.insert(input.path)
          progress.finished(input.path, "up to date" + URLOptions.note(outcome))
        }
      } else {
        written += outcome.written
        if renderedPaths.insert(input.path).inserted {
          rendered.append(input)
          if skippedPaths.remove(input.path) != nil { skipped -= 1 }
        }
        if !again { progress.finished(input.path, "written" + URLOptions.note(outcome)) }
      }
    }
    // When a table must evict, the photos up to date are looked up first: a lookup
    // counts as use, so eviction takes older entries (the old versions of changed
    // photos among them), not photos of this render that nobody looked at yet, which
    // would be rendered again in turn and evict others.
    var toRender: [(input: RenderInputs.Input, formats: [String])] = found.inputs.compactMap {
      input in
      let formats = placement.formats(for: input)
      return formats.isEmpty ? nil : (input, formats)
    }
    if !force, placement.mayEvict(cache) {
      toRender = toRender.filter { input, formats in
        guard Self.isUpToDate(input, formats: formats, cache: cache) else { return true }
        given[input.path] = Set(formats)
        record(input, Outcome(skipped: true))
        return false
      }
    }
    // Passes until no photo fails: each failure gives its places to the next photos in
    // the order found, which a later pass renders into them.
    while !toRender.isEmpty {
      let failedBefore = failedPaths.count
      for (input, formats) in toRender {
        given[input.path, default: []].formUnion(formats)
      }
      // libvips keeps one error buffer for the whole process: a photo that fails beside
      // others may read another's error with its own. Each is tried again alone at the
      // end, in the order given, so that its message is its own (and a passing failure,
      // a file still being copied, renders).
      var failedBesideOthers: [(input: RenderInputs.Input, formats: [String])] = []
      await withTaskGroup(of: (RenderInputs.Input, [String], Outcome).self) { group in
        var pending = Self.largestFirst(toRender, path: \.input.path)[...]
        func startNext() {
          guard let (input, formats) = pending.popFirst() else { return }
          group.addTask {
            (
              input, formats,
              await Self.render(
                input, family: family, formats: formats, cache: cache, force: force,
                urls: urlRender)
            )
          }
        }
        // URLs download ahead of the workers decoding (bounded: see URLOptions).
        for _ in 0..<(urls?.window(jobs: jobs) ?? jobs) { startNext() }
        for await (input, formats, outcome) in group {
          if outcome.failure != nil, outcome.retryAlone, jobs > 1 {
            failedBesideOthers.append((input, formats))
          } else {
            record(input, outcome)
          }
          startNext()
        }
      }
      if !failedBesideOthers.isEmpty {
        // Alone: the others' fill tasks end first.
        await cache.waitForFills()
        for (input, formats) in failedBesideOthers.sorted(by: {
          placement.positions[$0.input.path, default: 0]
            < placement.positions[$1.input.path, default: 0]
        }) {
          record(
            input,
            await Self.render(
              input, family: family, formats: formats, cache: cache, force: force,
              urls: urlRender))
        }
      }
      guard failedPaths.count > failedBefore else { break }
      placement.markFailed(failedPaths)
      toRender = found.inputs.compactMap { input in
        guard !failedPaths.contains(input.path) else { return nil }
        let new = placement.formats(for: input).filter {
          !(given[input.path]?.contains($0) ?? false)
        }
        return new.isEmpty ? nil : (input, new)
      }
    }
    for input in found.inputs where given[input.path] == nil {
      record(input, Outcome(leftOut: true))
    }
    // The tables' writer locks go with the cache: let its last fill tasks end first.
    await cache.waitForFills()
    progress.end()
    let seconds = progress.elapsedSeconds
    let tables = names.compactMap { name -> TableSummary? in
      guard let table = cache.table(format: name) else { return nil }
      let held = before[name] ?? []
      let added = rendered.filter {
        !held.contains($0.entityID) && placement.formats(for: $0).contains(name)
      }.count
      return TableSummary(
        format: name, stats: table.stats, evicted: max(0, held.count + added - table.stats.entries),
        leftOut: placement.leftOut(name))
    }
    let summary = Summary(
      family: family, shard: shard, photos: found.inputs.count + found.problems.count,
      rendered: rendered.count, upToDate: skipped, failed: failed, entriesWritten: written,
      seconds: seconds, tables: tables, manifest: manifest.origin, leftOut: leftOut,
      downloaded: urls.map { _ in downloaded }, failedURLs: failedURLs)
    summary.print(to: console, json: arguments.flag("json"))
    // After the summary: the entries are written whatever becomes of the sheet.
    if let sheet = arguments.value("sheet") {
      let tables = names.compactMap { name in cache.table(format: name).map { (name, $0) } }
      if let image = try ContactSheet.make(tables) {
        try image.write(to: sheet)
      } else {
        console.err("imgtool: --sheet: the family holds no entries; nothing written to \(sheet)")
      }
    }
    return failed.isEmpty ? ExitCode.success : ExitCode.failure
  }

  /// The `--shard` given, if any; `env/N` reads the batch engine's variables.
  static func shard(_ arguments: ParsedArguments) throws(CommandLineError) -> Shard? {
    guard let text = arguments.value("shard") else { return nil }
    do {
      return try Shard.parse(text, environment: ProcessInfo.processInfo.environment)
    } catch {
      throw .invalidValue(option: "--shard", value: text, reason: error.description)
    }
  }

  /// The family's tables, read-only, when every input is already in all of them at its
  /// current version; nil as soon as one is not (or a table is missing or changed).
  static func upToDateTables(
    _ inputs: [RenderInputs.Input], family: String, jobs: Int, _ arguments: ParsedArguments,
    _ context: CommandContext, urls: URLOptions?
  ) async -> [TableSummary]? {
    let heard = Lock(false)
    guard
      let (_, cache) = try? CacheOptions.open(
        arguments, context: Self.silent(context, heard: heard), family: family, readOnly: true)
    else { return nil }
    let names = cache.formatNames(family: family)
    // A table made with another maximumCount is changed by a writer's open (its
    // entries kept): not up to date.
    for name in names
    where cache.table(format: name)?.stats.capacity != cache.formats[name]?.maximumCount {
      return nil
    }
    let placement = Placement(inputs, formats: names, cache: cache)
    let files = inputs.filter { $0.url == nil }.map { ($0, placement.formats(for: $0)) }
    guard Self.allUpToDate(files, cache: cache, threads: jobs) else { return nil }
    if let urls,
      await !urls.render(cache: cache, formats: names).allUpToDate(
        inputs.filter { $0.url != nil }.map { ($0, placement.formats(for: $0)) }, cache: cache)
    {
      return nil
    }
    // A write torn by a killed writer is cleared by a writer's open: not up to date.
    if names.contains(where: { cache.table(format: $0)?.hasTornWrites == true }) { return nil }
    // Damage a table reported (found at its open, or in a record its list reads, a slot
    // no photo of this render holds included) is named and cleared by a writer's open:
    // not up to date. Found by Scripts/damage-sweep: an index cut at a record boundary
    // past the last entry, or a record never used damaged, passed as up to date, so
    // `verify` went on exiting 1 after the render.
    for name in names { _ = cache.table(format: name)?.entries() }
    if heard.withLock({ $0 }) { return nil }
    return names.compactMap { name in
      cache.table(format: name).map {
        TableSummary(format: name, stats: $0.stats, evicted: 0, leftOut: placement.leftOut(name))
      }
    }
  }

  /// Whether every file photo's entries in its formats hold its bytes as they are now:
  /// each read whole and hashed (no stat data trusted), on `threads` threads at once
  /// (`--jobs`), as a render reads its photos; false as soon as one is not (the others
  /// then stop at their next photo). Each thread takes the next photo not yet taken.
  static func allUpToDate(
    _ files: [(input: RenderInputs.Input, formats: [String])], cache: ImageCache, threads: Int
  ) -> Bool {
    // The next photo to take, and whether one was found not up to date.
    let state = Lock((next: 0, stale: false))
    DispatchQueue.concurrentPerform(iterations: max(1, min(threads, files.count))) { _ in
      while let index = state.withLock({ state -> Int? in
        guard !state.stale, state.next < files.count else { return nil }
        defer { state.next += 1 }
        return state.next
      }) {
        let (input, formats) = files[index]
        // Read even when it fits no format (none to look up), as before: an unreadable
        // photo is the writer's to report.
        guard let bytes = try? input.readBytes() else {
          state.withLock { $0.stale = true }
          continue
        }
        let entity = Entity(
          id: input.entityID, sourceVersion: RenderedEntity.sourceVersion(of: bytes),
          source: .file(input.path))
        if !formats.allSatisfy({ cache.contains(entity, format: $0) }) {
          state.withLock { $0.stale = true }
        }
      }
    }
    return !state.withLock { $0.stale }
  }

  /// The photos in the order they start: largest file first, so that a large photo
  /// started last does not leave the other cores idle while it finishes (the longest
  /// jobs first is the classic rule for spreading jobs over a few workers). Ties keep
  /// their order.
  static func largestFirst(_ inputs: [RenderInputs.Input]) -> [RenderInputs.Input] {
    largestFirst(inputs, path: \.path)
  }

  /// ``largestFirst(_:)`` of anything with a path (an input with its formats).
  static func largestFirst<T>(_ inputs: [T], path: (T) -> String) -> [T] {
    let sizes = inputs.map { input -> Int in
      var status = stat()
      return stat(path(input), &status) == 0 ? Int(status.st_size) : 0
    }
    return inputs.indices.sorted { sizes[$0] != sizes[$1] ? sizes[$0] > sizes[$1] : $0 < $1 }
      .map { inputs[$0] }
  }

  /// The context with table reports dropped, `heard` set by any: a read-only look that
  /// fails is retried for writing, which reports what it finds.
  private static func silent(_ context: CommandContext, heard: Lock<Bool>) -> CommandContext {
    CommandContext(
      console: Console(out: { _ in }, err: { _ in heard.withLock { $0 = true } }),
      registry: context.registry)
  }

  /// Whether `input`'s entries in `formats` hold its bytes as they are now (looked up:
  /// each counts as a use of the entry).
  static func isUpToDate(_ input: RenderInputs.Input, formats: [String], cache: ImageCache)
    -> Bool
  {
    guard !formats.isEmpty,
      let bytes = try? input.readBytes()
    else { return false }
    let entity = Entity(
      id: input.entityID, sourceVersion: RenderedEntity.sourceVersion(of: bytes),
      source: .file(input.path))
    return formats.allSatisfy { cache.contains(entity, format: $0) }
  }

  /// One photo: read once, hashed for its version, skipped if up to date, else filled
  /// into `formats` (those of the family it fits, see ``Placement``).
  static func render(
    _ input: RenderInputs.Input, family: String, formats: [String], cache: ImageCache, force: Bool,
    urls: URLRender? = nil
  ) async -> Outcome {
    if input.url != nil, let urls {
      return await urls.render(input, family: family, formats: formats, cache: cache, force: force)
    }
    let bytes: [UInt8]
    do {
      bytes = try input.readBytes()
    } catch {
      return Outcome(failure: error.reason)
    }
    let entity = RenderedEntity.entity(bytes: bytes, file: input.path, id: input.entityID)
    if formats.isEmpty { return Outcome(leftOut: true) }
    if !force, formats.allSatisfy({ cache.contains(entity, format: $0) }) {
      return Outcome(skipped: true)
    }
    // Only the formats that lack it: the others' entries stay as they are.
    let missing = force ? formats : formats.filter { !cache.contains(entity, format: $0) }
    do {
      // Not looked up after: the render reads none of what it writes, and a look-up
      // would map every entry's pages back into its memory.
      let written = try await cache.fillWithoutReading(
        entity, family: family, only: Set(missing), force: force)
      return Outcome(written: written.count)
    } catch {
      var outcome = Outcome(failure: Self.reason(error, path: input.path))
      // Its own time limit, not another's message: alone it would take as long again.
      if case .source(_, _, .timedOut) = error { outcome.retryAlone = false }
      return outcome
    }
  }

  /// The error without the path, which the summary puts in front.
  static func reason(_ error: CacheError, path: String) -> String {
    if case .source(_, _, let vipsError) = error { return vipsError.reason }
    let text = error.description
    return text.hasPrefix(path + ": ") ? String(text.dropFirst(path.count + 2)) : text
  }

  /// One table after a render: its size, the entries this render pushed out, and the
  /// photos it left out because the table keeps fewer (see ``Placement``).
  struct TableSummary {
    var format: String
    var stats: TableStats
    var evicted: Int
    var leftOut: Int = 0
  }

  struct Summary {
    var family: String
    var shard: Shard?
    /// Photos given (files found, and paths that could not be used).
    var photos: Int
    var rendered: Int
    var upToDate: Int
    var failed: [(path: String, error: String)]
    var entriesWritten: Int
    var seconds: Double
    var tables: [TableSummary]
    /// Where the formats came from, for the eviction warning.
    var manifest: String
    /// Photos that fit no format of the family (left out of every one).
    var leftOut = 0
    /// Body bytes downloaded, when the render has URLs.
    var downloaded: Int?
    /// The failed URLs (by path), with the HTTP status when one refused them.
    var failedURLs: [String: Int?] = [:]

    /// Photos rendered per second; nil when none was.
    var rate: Double? { rendered > 0 && seconds > 0 ? Double(rendered) / seconds : nil }

    var lines: [String] {
      var time = String(format: "in %.2f s", seconds)
      if let rate { time += String(format: " (%.1f photos/s)", rate) }
      var lines = [
        "render: family \(family)\(shard.map { ", shard \($0)" } ?? ""): "
          + "\(count(photos, "photo")): \(rendered) rendered, "
          + "\(upToDate) up to date, \(failed.count) failed"
          + (leftOut > 0 ? ", \(leftOut) left out" : "") + "; "
          + "\(count(entriesWritten, "entry", "entries")) written, "
          + (downloaded.map { "\(ByteCountText.describe($0)) downloaded, " } ?? "") + time
      ]
      lines += failed.map { "  failed: \($0.path): \($0.error)" }
      lines += tables.map { table in
        var line =
          "  \(table.format): \(count(table.stats.entries, "entry", "entries")) of "
          + "\(table.stats.capacity), \(ByteCountText.describe(table.stats.fileBytes))"
        if table.evicted > 0 { line += ", \(table.evicted) evicted" }
        if table.leftOut > 0 { line += ", \(table.leftOut) left out" }
        return line
      }
      return lines
    }

    /// One line per format that left photos out, and per format that evicted: the
    /// format, the counts, the number that fits and the field to raise.
    var warnings: [String] {
      let place =
        manifest == Manifest.builtIn.origin
        ? "a manifest (the built-in one is in use; 'imgtool manifest > imgtool.json' starts one)"
        : manifest
      let field = { (format: String) in
        "maximumCount of format '\(format)' (or defaults.maximumCount) in \(place)"
      }
      let leftOut = tables.filter { $0.leftOut > 0 }.map { table in
        let photos = table.stats.capacity + table.leftOut
        return "imgtool: warning: \(table.format): \(count(table.leftOut, "photo")) of "
          + "\(photos) left out: maximumCount is \(table.stats.capacity), so the table keeps "
          + "the first \(table.stats.capacity) in the order found and the rest are not rendered "
          + "into it; raise \(field(table.format)) to \(photos) to keep them all (the entries "
          + "it holds are kept)"
      }
      let evicted = tables.filter { $0.evicted > 0 }.map { table in
        "imgtool: warning: \(table.format): \(count(table.evicted, "entry", "entries")) "
          + "evicted: the table keeps at most \(table.stats.capacity); raise "
          + "\(field(table.format)) to keep them all (the entries it holds are kept)"
      }
      return leftOut + evicted
    }

    var json: JSONValue {
      .object([
        ("family", .string(family)), ("shard", shard.map(Self.json) ?? .null),
        ("inputs", .integer(photos)),
        ("rendered", .integer(rendered)), ("skipped", .integer(upToDate)),
        ("written", .integer(entriesWritten)),
        ("downloadedBytes", downloaded.map(JSONValue.integer) ?? .null),
        (
          "failed",
          .array(
            failed.map { failure in
              .object(
                [("path", .string(failure.path)), ("error", .string(failure.error))]
                  + URLOptions.json(failedURLs, path: failure.path))
            })
        ),
        ("seconds", .number(seconds)), ("imagesPerSecond", rate.map(JSONValue.number) ?? .null),
        ("evicted", .integer(tables.map(\.evicted).reduce(0, +))),
        ("leftOut", .integer(tables.map(\.leftOut).reduce(0, +))),
        (
          "tables",
          .array(
            tables.map { table in
              .object([
                ("format", .string(table.format)), ("entries", .integer(table.stats.entries)),
                ("capacity", .integer(table.stats.capacity)),
                ("evicted", .integer(table.evicted)), ("leftOut", .integer(table.leftOut)),
                ("fileBytes", .integer(table.stats.fileBytes)),
              ])
            })
        ),
      ])
    }

    static func json(_ shard: Shard) -> JSONValue {
      .object([
        ("index", .integer(shard.index)), ("count", .integer(shard.count)),
        ("from", shard.source.map(JSONValue.string) ?? .null),
      ])
    }

    func print(to console: Console, json asJSON: Bool) {
      warnings.forEach(console.err)
      if asJSON {
        console.out(json.text)
      } else {
        lines.forEach(console.out)
      }
    }

    private func count(_ number: Int, _ one: String, _ many: String? = nil) -> String {
      "\(number) \(number == 1 ? one : many ?? one + "s")"
    }
  }
}

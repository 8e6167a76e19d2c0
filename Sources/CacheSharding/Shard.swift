/// One of `count` parts of a render: the entities whose stable hash falls in it.
///
/// The part an entity falls in depends only on its id and on `count`: not on the
/// machine, the order the inputs were found in, or what the other parts hold, so
/// `count` workers of a batch engine (a Kubernetes Indexed Job, a Slurm job array, AWS
/// Batch array jobs) each render one part with no coordination, and every entity is
/// rendered by exactly one of them.
///
/// ```swift
/// let shard = try Shard.parse("env/3", environment: ["SLURM_ARRAY_TASK_ID": "5",
///                                                     "SLURM_ARRAY_TASK_MIN": "4"])
/// shard.index                      // 1
/// shard.contains("people/ada.jpg") // whether this worker renders ada
/// ```
public struct Shard: Sendable, Equatable, CustomStringConvertible {
  /// This part, from 0 to `count - 1`.
  public let index: Int
  /// How many parts the work is split into.
  public let count: Int
  /// The environment variable the index came from, or nil when it was given as a number.
  public let source: String?

  /// The most parts a render splits into.
  public static let maximumCount = 1_000_000

  /// The variables a batch engine gives each worker its index in, in the order they
  /// are looked for: Kubernetes Indexed Jobs, Slurm job arrays, AWS Batch array jobs.
  public static let indexVariables = [
    "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "AWS_BATCH_JOB_ARRAY_INDEX",
  ]

  public init(index: Int, count: Int, source: String? = nil) throws(ShardError) {
    guard (1...Self.maximumCount).contains(count) else {
      throw .countOutOfRange(count)
    }
    guard (0..<count).contains(index) else {
      throw .indexOutOfRange(index: index, count: count, variable: source)
    }
    self.index = index
    self.count = count
    self.source = source
  }

  /// Reads `I/N`, or `env/N` with the index from the batch engine's variables in
  /// `environment` (see ``indexVariables``).
  public static func parse(_ text: String, environment: [String: String]) throws(ShardError)
    -> Shard
  {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let count = Int(parts[1]) else { throw .malformed(text) }
    guard (1...maximumCount).contains(count) else { throw .countOutOfRange(count) }
    if parts[0] == "env" {
      return try fromEnvironment(environment, count: count)
    }
    guard let index = Int(parts[0]) else { throw .malformed(text) }
    return try Shard(index: index, count: count)
  }

  /// The worker's index from the first of ``indexVariables`` that is set. For Slurm it
  /// is `SLURM_ARRAY_TASK_ID` minus `SLURM_ARRAY_TASK_MIN` (divided by
  /// `SLURM_ARRAY_TASK_STEP` when the array steps), and an array of another size than
  /// `count` (`SLURM_ARRAY_TASK_COUNT`) is refused rather than leaving photos out.
  public static func fromEnvironment(_ environment: [String: String], count: Int)
    throws(ShardError) -> Shard
  {
    guard let variable = indexVariables.first(where: { environment[$0] != nil }) else {
      throw .noIndexInEnvironment(count: count)
    }
    func number(_ name: String) throws(ShardError) -> Int? {
      guard let text = environment[name] else { return nil }
      guard let value = Int(text) else {
        throw .notANumber(variable: name, value: text)
      }
      return value
    }
    guard var index = try number(variable) else { throw .noIndexInEnvironment(count: count) }
    if variable == "SLURM_ARRAY_TASK_ID" {
      guard let minimum = try number("SLURM_ARRAY_TASK_MIN") else {
        throw .missingVariable("SLURM_ARRAY_TASK_MIN", neededFor: variable)
      }
      let step = try number("SLURM_ARRAY_TASK_STEP") ?? 1
      let offset = index - minimum
      guard step > 0, offset % step == 0 else {
        throw .notANumber(variable: "SLURM_ARRAY_TASK_STEP", value: String(step))
      }
      index = offset / step
      if let tasks = try number("SLURM_ARRAY_TASK_COUNT"), tasks != count {
        throw .arraySizeDiffers(variable: "SLURM_ARRAY_TASK_COUNT", size: tasks, count: count)
      }
    }
    return try Shard(index: index, count: count, source: variable)
  }

  /// Whether this part renders the entity `id`.
  public func contains(_ id: String) -> Bool {
    Self.index(of: id, count: count) == index
  }

  /// The part of `count` that the entity `id` falls in: ``stableHash(_:)`` modulo `count`.
  public static func index(of id: String, count: Int) -> Int {
    Int(stableHash(id) % UInt64(count))
  }

  /// A 64-bit hash of the id's UTF-8 bytes that is the same on every machine and in
  /// every version: FNV-1a (offset basis 0xcbf29ce484222325, prime 0x100000001b3), then
  /// the SplitMix64 finaliser so that every bit of the id reaches the low bits.
  public static func stableHash(_ id: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in id.utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
    hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
    return hash ^ (hash >> 31)
  }

  /// `I/N`, and where I came from when it came from the environment.
  public var description: String {
    "\(index)/\(count)" + (source.map { " (from \($0))" } ?? "")
  }
}

/// Why a `--shard` value names no part of the work.
public enum ShardError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Not `I/N` or `env/N`.
  case malformed(String)
  /// N is not from 1 to ``Shard/maximumCount``.
  case countOutOfRange(Int)
  /// I is not from 0 to N - 1; `variable` names where it came from, if the environment.
  case indexOutOfRange(index: Int, count: Int, variable: String?)
  /// `env/N` with none of ``Shard/indexVariables`` set.
  case noIndexInEnvironment(count: Int)
  /// A variable that must be a whole number is not.
  case notANumber(variable: String, value: String)
  /// A variable that the index variable needs beside it is not set.
  case missingVariable(String, neededFor: String)
  /// The batch engine runs another number of workers than N.
  case arraySizeDiffers(variable: String, size: Int, count: Int)

  public var description: String {
    switch self {
    case .malformed(let text):
      "'\(text)' is not I/N (0 <= I < N, e.g. 0/4) or env/N"
    case .countOutOfRange(let count):
      "the number of shards \(count) must be 1 to \(Shard.maximumCount)"
    case .indexOutOfRange(let index, let count, let variable):
      (variable.map { "\($0) gives shard \(index)" } ?? "shard \(index)")
        + " but there are \(count) shards (0 to \(count - 1))"
        + (variable == nil ? "" : "; the job's array size and N must be the same")
    case .noIndexInEnvironment(let count):
      "env/\(count) reads the shard from the batch engine, but none of "
        + Shard.indexVariables.joined(separator: ", ")
        + " is set; run it as a Kubernetes Indexed Job, a Slurm job array or an AWS Batch "
        + "array job, or give the shard as I/\(count)"
    case .notANumber(let variable, let value):
      "\(variable) is '\(value)', not a whole number the shard can come from"
    case .missingVariable(let name, let neededFor):
      "\(neededFor) is set but \(name) is not; both are needed to number the shards from 0"
    case .arraySizeDiffers(let variable, let size, let count):
      "\(variable) is \(size) but the shard says /\(count): with another array size some "
        + "photos would be rendered twice or never; make them the same"
    }
  }
}

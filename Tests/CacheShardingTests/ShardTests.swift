import CacheSharding
import Testing

@Suite("Shard")
struct ShardTests {
  @Test("the hash is FNV-1a then SplitMix64, as computed by an independent Python script")
  func stableHashValues() {
    // python3: FNV-1a 64 over the UTF-8 bytes, then the SplitMix64 finaliser.
    #expect(Shard.stableHash("") == 0xf52a_15e9_a9b5_e89b)
    #expect(Shard.stableHash("astronaut.png") == 0x0621_4739_8dbf_473d)
    #expect(Shard.stableHash("people/ada.jpg") == 0xb827_a421_400a_8997)
    #expect(Shard.stableHash("é.jpg") == 0xb648_4473_ec0f_8217)
    #expect(Shard.index(of: "astronaut.png", count: 3) == 1)
    #expect(Shard.index(of: "coffee.png", count: 3) == 2)
  }

  @Test("every id falls in exactly one shard, and the shards are about even")
  func partition() throws {
    let ids = (0..<3_000).map { "photos/\($0 / 100)/IMG_\($0).jpg" }
    for count in [1, 2, 3, 7, 64] {
      let shards = try (0..<count).map { try Shard(index: $0, count: count) }
      var sizes = Array(repeating: 0, count: count)
      for id in ids {
        let holders = shards.filter { $0.contains(id) }
        #expect(holders.count == 1)
        sizes[holders[0].index] += 1
      }
      let even = Double(ids.count) / Double(count)
      #expect(sizes.allSatisfy { abs(Double($0) - even) < even * 0.1 + 30 }, "\(sizes)")
    }
  }

  @Test func parsesIndexOverCount() throws {
    #expect(try Shard.parse("2/5", environment: [:]) == Shard(index: 2, count: 5))
    #expect(try Shard.parse("0/1", environment: [:]).description == "0/1")
    #expect(throws: ShardError.malformed("5")) { try Shard.parse("5", environment: [:]) }
    #expect(throws: ShardError.malformed("a/3")) { try Shard.parse("a/3", environment: [:]) }
    #expect(throws: ShardError.countOutOfRange(0)) { try Shard.parse("0/0", environment: [:]) }
    #expect(throws: ShardError.indexOutOfRange(index: 3, count: 3, variable: nil)) {
      try Shard.parse("3/3", environment: [:])
    }
    #expect(throws: ShardError.indexOutOfRange(index: -1, count: 3, variable: nil)) {
      try Shard.parse("-1/3", environment: [:])
    }
    // Given as I/N, no batch engine is involved: no word of its array size.
    #expect(
      ShardError.indexOutOfRange(index: 3, count: 3, variable: nil).description
        == "shard 3 but there are 3 shards (0 to 2)")
  }

  @Test("env/N with each batch engine's variable")
  func fromEachEngine() throws {
    let kubernetes = try Shard.parse("env/4", environment: ["JOB_COMPLETION_INDEX": "3"])
    #expect(kubernetes == (try Shard(index: 3, count: 4, source: "JOB_COMPLETION_INDEX")))
    let aws = try Shard.parse("env/4", environment: ["AWS_BATCH_JOB_ARRAY_INDEX": "0"])
    #expect(aws == (try Shard(index: 0, count: 4, source: "AWS_BATCH_JOB_ARRAY_INDEX")))
    let slurm = try Shard.parse(
      "env/3",
      environment: [
        "SLURM_ARRAY_TASK_ID": "11", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_COUNT": "3",
      ])
    #expect(slurm == (try Shard(index: 1, count: 3, source: "SLURM_ARRAY_TASK_ID")))
    let stepped = try Shard.parse(
      "env/3",
      environment: [
        "SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_STEP": "2",
      ])
    #expect(stepped.index == 2)
  }

  @Test("env/N refuses, naming the variables, when it cannot tell the shard")
  func environmentRefusals() {
    #expect(throws: ShardError.noIndexInEnvironment(count: 3)) {
      try Shard.parse("env/3", environment: ["PATH": "/bin"])
    }
    #expect(
      ShardError.noIndexInEnvironment(count: 3).description
        == "env/3 reads the shard from the batch engine, but none of JOB_COMPLETION_INDEX, "
        + "SLURM_ARRAY_TASK_ID, AWS_BATCH_JOB_ARRAY_INDEX is set; run it as a Kubernetes "
        + "Indexed Job, a Slurm job array or an AWS Batch array job, or give the shard as I/3")
    #expect(
      throws: ShardError.indexOutOfRange(index: 3, count: 3, variable: "JOB_COMPLETION_INDEX")
    ) {
      try Shard.parse("env/3", environment: ["JOB_COMPLETION_INDEX": "3"])
    }
    #expect(
      ShardError.indexOutOfRange(index: 3, count: 3, variable: "JOB_COMPLETION_INDEX").description
        == "JOB_COMPLETION_INDEX gives shard 3 but there are 3 shards (0 to 2); "
        + "the job's array size and N must be the same")
    #expect(throws: ShardError.notANumber(variable: "AWS_BATCH_JOB_ARRAY_INDEX", value: "x")) {
      try Shard.parse("env/3", environment: ["AWS_BATCH_JOB_ARRAY_INDEX": "x"])
    }
    #expect(
      throws: ShardError.missingVariable("SLURM_ARRAY_TASK_MIN", neededFor: "SLURM_ARRAY_TASK_ID")
    ) {
      try Shard.parse("env/3", environment: ["SLURM_ARRAY_TASK_ID": "1"])
    }
    #expect(
      throws: ShardError.arraySizeDiffers(variable: "SLURM_ARRAY_TASK_COUNT", size: 4, count: 3)
    ) {
      try Shard.parse(
        "env/3",
        environment: [
          "SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4",
        ])
    }
    #expect(throws: ShardError.indexOutOfRange(index: 5, count: 3, variable: "SLURM_ARRAY_TASK_ID"))
    {
      try Shard.parse(
        "env/3", environment: ["SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "2"])
    }
  }
}

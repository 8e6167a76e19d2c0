import ImageToolPluginABI

/// One C `create` function per definition slot: the interface calls `create` with the
/// arguments only, so which definition it makes is in which function it calls.
enum CreateTrampolines {
  typealias Function =
    @convention(c) (
      UnsafePointer<ImageToolArgument>?, Int32, UnsafeMutablePointer<CChar>?, Int
    ) -> UnsafeMutableRawPointer?

  /// The most processors one library defines.
  static let count = functions.count

  static let functions: [Function] = [
    { ExportedProcessor.create(slot: 0, $0, $1, $2, $3) },
    { ExportedProcessor.create(slot: 1, $0, $1, $2, $3) },
    { ExportedProcessor.create(slot: 2, $0, $1, $2, $3) },
    { ExportedProcessor.create(slot: 3, $0, $1, $2, $3) },
    { ExportedProcessor.create(slot: 4, $0, $1, $2, $3) },
    { ExportedProcessor.create(slot: 5, $0, $1, $2, $3) },
    { ExportedProcessor.create(slot: 6, $0, $1, $2, $3) },
    { ExportedProcessor.create(slot: 7, $0, $1, $2, $3) },
    { ExportedProcessor.create(slot: 8, $0, $1, $2, $3) },
    { ExportedProcessor.create(slot: 9, $0, $1, $2, $3) },
    { ExportedProcessor.create(slot: 10, $0, $1, $2, $3) },
    { ExportedProcessor.create(slot: 11, $0, $1, $2, $3) },
    { ExportedProcessor.create(slot: 12, $0, $1, $2, $3) },
    { ExportedProcessor.create(slot: 13, $0, $1, $2, $3) },
    { ExportedProcessor.create(slot: 14, $0, $1, $2, $3) },
    { ExportedProcessor.create(slot: 15, $0, $1, $2, $3) },
  ]
}

import Foundation
import ImageProcessing
import ImageToolCLI

// Flat memory over long batches (see MemoryPolicy), then the built-in processors;
// `--plugin PATH` libraries add theirs when the command line runs.
MemoryPolicy.applyForBatchWork()
let registry = ProcessorRegistry.withBuiltIns()
let status = await ImageTool(registry: registry).run(Array(CommandLine.arguments.dropFirst()))
exit(status)

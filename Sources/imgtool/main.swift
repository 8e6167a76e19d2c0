import Foundation
import ImageProcessing
import ImageToolCLI

// The built-in processors; `--plugin PATH` libraries add theirs when the command line runs.
let registry = ProcessorRegistry.withBuiltIns()
let status = await ImageTool(registry: registry).run(Array(CommandLine.arguments.dropFirst()))
exit(status)

import Foundation
import ImageToolCLI

let status = await ImageTool().run(Array(CommandLine.arguments.dropFirst()))
exit(status)

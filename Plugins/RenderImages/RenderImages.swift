import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory render-images --family avatar Examples/Photos`:
/// runs `imgtool render` with the arguments given, from the package's folder, so a
/// package renders its own photos with its own imgtool.json (or the built-in formats).
@main
struct RenderImages: CommandPlugin {
  func performCommand(context: PluginContext, arguments: [String]) async throws {
    let imgtool = try context.tool(named: "imgtool")
    let process = Process()
    process.executableURL = imgtool.url
    process.arguments = ["render"] + arguments
    process.currentDirectoryURL = context.package.directoryURL
    try process.run()
    process.waitUntilExit()
    if process.terminationStatus != 0 {
      Diagnostics.error("imgtool render exited with status \(process.terminationStatus)")
      throw RenderImagesError.failed(status: process.terminationStatus)
    }
  }
}

enum RenderImagesError: Error, CustomStringConvertible {
  case failed(status: Int32)

  var description: String {
    switch self {
    case .failed(let status): "imgtool render failed (exit status \(status)); see its output above"
    }
  }
}

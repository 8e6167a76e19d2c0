import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory render-images --family avatar Examples/Photos`:
/// runs `imgtool render` with the arguments given, from the package's folder, so a
/// package renders its own photos with its own imgtool.json (or the built-in formats).
///
/// `imgtool` is a launcher that runs its commands in an engine library beside it, so
/// the plugin builds both products (in release) before it runs the launcher.
@main
struct RenderImages: CommandPlugin {
  static let products = ["ImageToolEngine", "imgtool"]

  func performCommand(context: PluginContext, arguments: [String]) async throws {
    var imgtool: URL?
    for product in Self.products {
      let result = try packageManager.build(
        .product(product), parameters: .init(configuration: .release, logging: .concise))
      guard result.succeeded else {
        print(result.logText)
        throw RenderImagesError.buildFailed(product: product)
      }
      if let executable = result.builtArtifacts.first(where: { $0.kind == .executable }) {
        imgtool = executable.url
      }
    }
    guard let imgtool else { throw RenderImagesError.noExecutable }
    let process = Process()
    process.executableURL = imgtool
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
  case buildFailed(product: String)
  case noExecutable
  case failed(status: Int32)

  var description: String {
    switch self {
    case .buildFailed(let product):
      "swift build -c release --product \(product) failed; see its log above"
    case .noExecutable: "building the product imgtool gave no executable"
    case .failed(let status): "imgtool render failed (exit status \(status)); see its output above"
    }
  }
}

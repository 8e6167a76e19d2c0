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
    for (product, configuration) in Self.pluginProducts(context: context, arguments: arguments) {
      let result = try packageManager.build(
        .product(product), parameters: .init(configuration: configuration, logging: .concise))
      guard result.succeeded else {
        print(result.logText)
        throw RenderImagesError.buildFailed(product: product)
      }
    }
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

extension RenderImages {
  /// The package's dynamic library products that the manifest's `"plugins"` name, as
  /// `.build/<configuration>/lib<Product>.so`, with the configuration the path names
  /// (release unless it says debug): a plugin of the package is built before it is loaded.
  static func pluginProducts(context: PluginContext, arguments: [String])
    -> [(String, PackageManager.BuildConfiguration)]
  {
    let folder = context.package.directoryURL
    let manifest =
      arguments.firstIndex(of: "--manifest").flatMap { index in
        arguments.indices.contains(index + 1) ? arguments[index + 1] : nil
      }.map { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : folder.appendingPathComponent($0) }
      ?? folder.appendingPathComponent("imgtool.json")
    guard let data = try? Data(contentsOf: manifest),
      let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let plugins = json["plugins"] as? [String]
    else { return [] }
    let dynamic = Set(
      context.package.products.compactMap { product in
        (product as? LibraryProduct).flatMap { $0.kind == .dynamic ? $0.name : nil }
      })
    return plugins.compactMap { path in
      let file = (path as NSString).lastPathComponent
      guard file.hasPrefix("lib"), file.hasSuffix(".so") else { return nil }
      let name = String(file.dropFirst(3).dropLast(3))
      guard dynamic.contains(name) else { return nil }
      return (name, path.contains("/debug/") ? .debug : .release)
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

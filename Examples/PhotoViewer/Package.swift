// swift-tools-version: 6.0
import PackageDescription

// The photo viewer is a package of its own so that ImageTool itself never needs GTK:
// it depends on the root package by path. A path dependency is known by its folder's
// name, which is whatever the clone was called, so ask for it by that name.
let root = Context.packageDirectory.split(separator: "/").dropLast(2).last.map(String.init)
let imageTool = root ?? "ImageTool"

let package = Package(
  name: "PhotoViewer",
  products: [
    .executable(name: "photo-viewer", targets: ["PhotoViewer"])
  ],
  dependencies: [
    .package(path: "../..")
  ],
  targets: [
    .systemLibrary(
      name: "CGtk",
      pkgConfig: "gtk4",
      providers: [.apt(["libgtk-4-dev"])]
    ),
    .target(name: "CGtkShim", dependencies: ["CGtk"]),
    .executableTarget(
      name: "PhotoViewer",
      dependencies: [
        "CGtk", "CGtkShim",
        .product(name: "ImageTables", package: imageTool),
        .product(name: "ImageCaching", package: imageTool),
        .product(name: "ImageProcessing", package: imageTool),
        .product(name: "PhotoModels", package: imageTool),
        .product(name: "ImageToolManifest", package: imageTool),
      ]),
    .testTarget(
      name: "PhotoViewerTests",
      dependencies: [
        "PhotoViewer", "CGtk",
        .product(name: "ImageTables", package: imageTool),
        .product(name: "ImageCaching", package: imageTool),
        .product(name: "PhotoModels", package: imageTool),
        .product(name: "ImageToolManifest", package: imageTool),
      ]),
  ],
  swiftLanguageModes: [.v6]
)

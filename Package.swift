// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "ImageTool",
  products: [
    .executable(name: "imgtool", targets: ["imgtool"]),
    .library(name: "Vips", targets: ["Vips"]),
    .library(name: "ImageTables", targets: ["ImageTables"]),
    .library(name: "ImageProcessing", targets: ["ImageProcessing"]),
    .library(name: "ImageToolCLI", targets: ["ImageToolCLI"]),
  ],
  targets: [
    .systemLibrary(
      name: "CVips",
      pkgConfig: "vips",
      providers: [.apt(["libvips-dev"])]
    ),
    .target(name: "CVipsShim", dependencies: ["CVips"]),
    .target(name: "Vips", dependencies: ["CVips", "CVipsShim"]),
    .target(name: "ImageTables"),
    .target(name: "ImageProcessing", dependencies: ["Vips", "ImageTables"]),
    .target(name: "ImageToolCLI", dependencies: ["Vips", "ImageTables", "ImageProcessing"]),
    .executableTarget(name: "imgtool", dependencies: ["ImageToolCLI", "Vips"]),
    .testTarget(name: "VipsTests", dependencies: ["Vips"]),
    .testTarget(name: "ImageTablesTests", dependencies: ["ImageTables"]),
    .testTarget(
      name: "ImageProcessingTests", dependencies: ["ImageProcessing", "ImageTables", "Vips"]),
    .testTarget(
      name: "ImageToolCLITests", dependencies: ["ImageToolCLI", "ImageTables", "Vips", "imgtool"]),
  ],
  swiftLanguageModes: [.v6]
)

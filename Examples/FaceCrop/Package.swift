// swift-tools-version: 6.0
import PackageDescription

// A processor plugin for imgtool that finds faces with OpenCV (Debian's packages, which
// `Scripts/bootstrap --face` installs): `faceFill(padding:fallback:)`. A package of its
// own, so ImageTool itself never needs OpenCV. Build: `swift build`; use:
// `imgtool --plugin Examples/FaceCrop/.build/debug/libFaceCrop.so ...`.
let package = Package(
  name: "FaceCrop",
  products: [
    .library(name: "FaceCrop", type: .dynamic, targets: ["FaceCrop"])
  ],
  dependencies: [
    // The plugin needs only ImageTool's C header; the tests load it into ImageTool's host.
    .package(name: "ImageTool", path: "../..")
  ],
  targets: [
    .systemLibrary(name: "LibVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
    .target(
      name: "FaceCrop",
      dependencies: [
        "LibVips", .product(name: "ImageToolPluginABI", package: "ImageTool"),
      ],
      // OpenCV 4 from Debian (libopencv-objdetect-dev, -imgproc-dev, -core-dev, opencv-data).
      // Not through pkg-config: its opencv4.pc links all 56 OpenCV libraries (Qt, VTK and
      // HDF5 behind them), and the plugin then took 2 s to load; it needs three. Its
      // headers as system headers.
      cxxSettings: [.unsafeFlags(["-isystem", "/usr/include/opencv4"])],
      linkerSettings: [
        .linkedLibrary("opencv_objdetect"), .linkedLibrary("opencv_imgproc"),
        .linkedLibrary("opencv_core"),
      ]
    ),
    // The tests' second detector, independent of the plugin's (OpenCV's other frontal
    // cascade), to check the faces are in the avatars.
    .target(
      name: "IndependentDetector",
      dependencies: ["LibVips"],
      cxxSettings: [.unsafeFlags(["-isystem", "/usr/include/opencv4"])],
      linkerSettings: [
        .linkedLibrary("opencv_objdetect"), .linkedLibrary("opencv_imgproc"),
        .linkedLibrary("opencv_core"),
      ]
    ),
    .testTarget(
      name: "FaceCropTests",
      dependencies: [
        "IndependentDetector",
        .product(name: "ImageProcessing", package: "ImageTool"),
        .product(name: "ImageTables", package: "ImageTool"),
        .product(name: "Vips", package: "ImageTool"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6],
  cxxLanguageStandard: .cxx17
)

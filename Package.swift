// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "ImageTool",
  products: [
    // `imgtool` is a small launcher; every command but `--version` runs in the engine,
    // a library it loads from its own folder (build both: see README.md).
    .executable(name: "imgtool", targets: ["imgtool"]),
    .library(name: "ImageToolEngine", type: .dynamic, targets: ["ImageToolEngine"]),
    .library(name: "Vips", targets: ["Vips"]),
    .library(name: "ImageTables", targets: ["ImageTables"]),
    .library(name: "ImageProcessing", targets: ["ImageProcessing"]),
    .library(name: "ImageCaching", targets: ["ImageCaching"]),
    .library(name: "WebLoading", targets: ["WebLoading"]),
    .library(name: "CacheSharding", targets: ["CacheSharding"]),
    .library(name: "PhotoModels", targets: ["PhotoModels"]),
    .library(name: "ImageToolManifest", targets: ["ImageToolManifest"]),
    .library(name: "ImageToolCLI", targets: ["ImageToolCLI"]),
    // The plugin interface alone (a C header), for plugins built as packages of their own
    // (Examples/FaceCrop).
    .library(name: "ImageToolPluginABI", targets: ["ImageToolPluginABI"]),
    // Swift processors as a plugin: a dynamic library product of a target that uses it.
    .library(name: "ImageToolPluginKit", targets: ["ImageToolPluginKit"]),
    // An example processor plugin, loaded with `imgtool --plugin` (Examples/CustomProcessor).
    .library(name: "SepiaPlugin", type: .dynamic, targets: ["SepiaPlugin"]),
    // The same as a Swift processor, through ImageToolPluginKit (Examples/CustomProcessor).
    .library(name: "InvertPlugin", type: .dynamic, targets: ["InvertPlugin"]),
    .plugin(name: "render-images", targets: ["RenderImages"]),
  ],
  targets: [
    .systemLibrary(
      name: "CVips",
      pkgConfig: "vips",
      providers: [.apt(["libvips-dev"])]
    ),
    // Little CMS, which libvips uses for ICC profiles; the shim calls it directly to
    // keep one transform per profile (Sources/CVipsShim/ColourTransform.c).
    .systemLibrary(
      name: "CLCMS2",
      pkgConfig: "lcms2",
      providers: [.apt(["liblcms2-dev"])]
    ),
    // libjpeg, which libvips decodes JPEG with: the shim decodes a JPEG libjpeg reads
    // without a warning straight into memory (Sources/CVipsShim/JPEGDecode.c), and asks it
    // which warning a decode raised (Sources/CVipsShim/JPEGScanCheck.c).
    .systemLibrary(
      name: "CJPEG",
      pkgConfig: "libjpeg",
      providers: [.apt(["libjpeg62-turbo-dev"])]
    ),
    // libwebp and its demuxer, which libvips decodes WebP with: the shim decodes a still
    // WebP straight into memory (Sources/CVipsShim/WebPDecode.c), and one that libvips
    // computes in one strip of rows again, where libvips drops the loader's failure
    // (Sources/CVipsShim/WebPCheck.c).
    .systemLibrary(
      name: "CWebP",
      pkgConfig: "libwebpdemux",
      providers: [.apt(["libwebp-dev"])]
    ),
    // libpng, which libvips decodes PNG with: the shim decodes a PNG libpng reads without
    // a warning straight into memory (Sources/CVipsShim/PNGDecode.c).
    .systemLibrary(
      name: "CPNG",
      pkgConfig: "libpng",
      providers: [.apt(["libpng-dev"])]
    ),
    // libdeflate: the shim inflates a plain PNG's image data in one call with it, about
    // twice as fast as zlib (Sources/CVipsShim/PNGRows.c).
    .systemLibrary(
      name: "CDeflate",
      pkgConfig: "libdeflate",
      providers: [.apt(["libdeflate-dev"])]
    ),
    .target(
      name: "CVipsShim", dependencies: ["CVips", "CLCMS2", "CJPEG", "CWebP", "CPNG", "CDeflate"]),
    // A mutex ThreadSanitizer sees (pthread), for every lock of the library.
    .target(name: "Locking"),
    // libcurl, for the HTTP(S) client of URL sources (WebLoading).
    .systemLibrary(
      name: "CCurl",
      pkgConfig: "libcurl",
      providers: [.apt(["libcurl4-openssl-dev"])]
    ),
    .target(name: "CCurlShim", dependencies: ["CCurl"]),
    .target(name: "WebLoading", dependencies: ["CCurl", "CCurlShim", "Locking"]),
    .target(name: "Vips", dependencies: ["CVips", "CVipsShim", "Locking"]),
    .target(name: "ImageToolVersion"),
    // A SIGBUS guard for the tables' mappings: a file cut short under a reader never traps.
    .target(name: "CMappingGuard"),
    .target(name: "ImageTables", dependencies: ["CMappingGuard"]),
    .target(name: "ImageToolPluginABI"),
    .target(name: "CacheSharding", dependencies: ["ImageTables", "Locking"]),
    .target(
      name: "ImageProcessing",
      dependencies: ["Vips", "ImageTables", "ImageToolPluginABI", "Locking"]),
    .target(
      name: "ImageCaching",
      dependencies: ["Vips", "ImageTables", "ImageProcessing", "Locking", "WebLoading"]),
    .target(
      name: "PhotoModels",
      dependencies: ["Vips", "ImageTables", "ImageProcessing", "ImageCaching", "Locking"]),
    .target(name: "ImageToolManifest", dependencies: ["ImageTables", "ImageProcessing"]),
    .target(
      name: "ImageToolPluginKit",
      dependencies: ["ImageProcessing", "ImageTables", "ImageToolPluginABI", "Vips"]),
    .target(
      name: "ImageToolCLI",
      dependencies: [
        "Vips", "ImageTables", "ImageProcessing", "ImageCaching", "PhotoModels", "CacheSharding",
        "ImageToolVersion", "ImageToolManifest", "Locking", "WebLoading",
      ]),
    .target(name: "ImageToolEngine", dependencies: ["ImageToolCLI", "ImageProcessing"]),
    .target(
      name: "SepiaPlugin", dependencies: ["CVips", "CVipsShim", "ImageToolPluginABI"],
      path: "Examples/CustomProcessor/SepiaPlugin"),
    .target(
      name: "InvertPlugin", dependencies: ["ImageProcessing", "ImageToolPluginKit", "Vips"],
      path: "Examples/CustomProcessor/InvertPlugin"),
    .executableTarget(
      name: "Gallery",
      dependencies: [
        "ImageCaching", "ImageTables", "ImageToolCLI", "ImageToolManifest", "PhotoModels",
      ],
      path: "Examples/Gallery"),
    .executableTarget(name: "imgtool", dependencies: ["ImageToolVersion"]),
    // Whether two caches hold the same entries, byte for byte (Examples/Distributed).
    .executableTarget(
      name: "compare-caches", dependencies: ["ImageTables"],
      path: "Examples/Distributed/CompareCaches"),
    // One reader process, for the reader-table tests and Benchmarks/scale/readers.
    .executableTarget(
      name: "table-reader", dependencies: ["ImageTables"], path: "Tests/TableReader"),
    // URLSession against WebLoading's libcurl client (Benchmarks/http-clients).
    .executableTarget(
      name: "http-client-bench", dependencies: ["WebLoading", "TestFixtures", "Locking"],
      path: "Benchmarks/HTTPClients"),
    .plugin(
      name: "RenderImages",
      capability: .command(
        intent: .custom(
          verb: "render-images",
          description: "Render the package's photos into a family of formats with imgtool render."),
        permissions: [
          .writeToPackageDirectory(reason: "imgtool render writes its tables to the cache folder.")
        ])),
    // The test images every test target uses: kept in Tests/Fixtures, or made there with
    // libvips at test time (Tests/Fixtures/README.md).
    .target(
      name: "TestFixtures", dependencies: ["Vips", "Locking"], path: "Tests/Fixtures",
      exclude: ["photos", "bad", "web", "corpora", "README.md", "CREDITS.md"]),
    .testTarget(name: "VipsTests", dependencies: ["Vips", "TestFixtures"]),
    .testTarget(
      name: "WebLoadingTests", dependencies: ["WebLoading", "TestFixtures", "Locking"]),
    .testTarget(
      name: "ImageTablesTests",
      dependencies: ["ImageTables", "TestFixtures", "Locking", "table-reader"]),
    .testTarget(
      name: "CacheShardingTests", dependencies: ["CacheSharding", "ImageTables", "TestFixtures"]),
    .testTarget(
      name: "ImageCachingTests",
      dependencies: [
        "ImageCaching", "ImageProcessing", "ImageTables", "Vips", "TestFixtures", "Locking",
        "WebLoading",
      ]),
    .testTarget(
      name: "PhotoModelsTests",
      dependencies: [
        "PhotoModels", "ImageCaching", "ImageProcessing", "ImageTables", "Vips", "TestFixtures",
        "Locking", "WebLoading",
      ]),
    .testTarget(
      name: "ImageProcessingTests",
      dependencies: ["ImageProcessing", "ImageTables", "Vips", "TestFixtures", "Locking"]),
    .testTarget(
      name: "ImageToolCLITests",
      dependencies: [
        "ImageToolCLI", "ImageTables", "PhotoModels", "Vips", "imgtool", "Gallery", "TestFixtures",
        "CacheSharding", "compare-caches", "ImageToolManifest", "ImageCaching", "Locking",
        "WebLoading", "ImageProcessing",
      ]),
  ],
  swiftLanguageModes: [.v6]
)

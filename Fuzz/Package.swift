// swift-tools-version: 6.0
// libFuzzer harnesses, through the public API:
// - TableFuzz: the table's header and record parsers (seed: make-seed.sh).
// - DecodeFuzz: the decode entry points, the header probe and `imgtool apply`'s decode,
//   pipelines and rasteriser (seeds: the files of Tests/Fixtures/corpora, photos, bad).
// Build and run (from this folder):
//   swift build -c release -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library
//   .build/release/TableFuzz -max_total_time=300 corpus/
//   ./seed-decode.sh && .build/release/DecodeFuzz -max_total_time=600 -rss_limit_mb=2048 \
//     decode-corpus/
import PackageDescription

let package = Package(
  name: "TableFuzz",
  dependencies: [.package(name: "ImageTool", path: "..")],
  targets: [
    .executableTarget(
      name: "TableFuzz", dependencies: [.product(name: "ImageTables", package: "ImageTool")]),
    .executableTarget(
      name: "DecodeFuzz",
      dependencies: [
        .product(name: "Vips", package: "ImageTool"),
        .product(name: "ImageProcessing", package: "ImageTool"),
        .product(name: "ImageTables", package: "ImageTool"),
      ]),
  ],
  swiftLanguageModes: [.v6]
)

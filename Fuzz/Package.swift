// swift-tools-version: 6.0
// A libFuzzer harness for the table's header and record parsers, through the public
// API. Build and run (from this folder):
//   swift build -c release -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library
//   .build/release/TableFuzz -max_total_time=300 corpus/
import PackageDescription

let package = Package(
  name: "TableFuzz",
  dependencies: [.package(name: "ImageTool", path: "..")],
  targets: [
    .executableTarget(
      name: "TableFuzz", dependencies: [.product(name: "ImageTables", package: "ImageTool")])
  ],
  swiftLanguageModes: [.v6]
)

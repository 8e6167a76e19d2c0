import Foundation
import TestFixtures
import Testing

/// Every Swift snippet in README.md compiles as written against the modules this test
/// run built: each is type-checked by `swiftc` as a program of its own, so a snippet
/// that names a missing import, an undefined value or a changed API fails here.
@Suite("README snippets")
struct ReadmeSnippetTests {
  /// The fenced ```swift blocks of a Markdown file, in order.
  static func swiftSnippets(in path: String) throws -> [String] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var snippets: [String] = []
    var current: [Substring]? = nil
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
        current = []
      } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
        snippets.append(current!.joined(separator: "\n") + "\n")
        current = nil
      } else {
        current?.append(line)
      }
    }
    return snippets
  }

  /// The folder of the build products beside this test bundle (`.build/<triple>/debug`).
  static let buildFolder = URL(fileURLWithPath: CommandLine.arguments[0])
    .deletingLastPathComponent()

  @Test func readmeHasSnippets() throws {
    let snippets = try Self.swiftSnippets(
      in: Fixtures.packageRoot.appendingPathComponent("README.md").path)
    #expect(!snippets.isEmpty)
    #expect(snippets.allSatisfy { $0.contains("import ") })
  }

  /// The Markdown files whose Swift snippets must compile: the README, and the fixtures'
  /// README that other tests' authors copy from.
  static let documents = ["README.md", "Tests/Fixtures/README.md"]

  @Test(arguments: documents)
  func everySnippetCompiles(_ document: String) throws {
    let path = Fixtures.packageRoot.appendingPathComponent(document).path
    let folder = try Fixtures.temporaryFolder()
    let snippets = try Self.swiftSnippets(in: path)
    #expect(!snippets.isEmpty, "\(document) has no Swift snippet")
    for (number, snippet) in snippets.enumerated() {
      let file = folder.appendingPathComponent("snippet\(number + 1).swift")
      try snippet.write(to: file, atomically: true, encoding: .utf8)
      let result = try Self.typeCheck(file.path)
      #expect(
        result.status == 0,
        "\(document)'s Swift snippet \(number + 1) does not compile:\n\(result.output)\n\(snippet)")
    }
  }

  @Test func aBrokenSnippetIsCaught() throws {
    let file = try Fixtures.temporaryFolder().appendingPathComponent("broken.swift")
    try "import ImageCaching\ncache.prefetch([bob], family: \"avatar\")\n"
      .write(to: file, atomically: true, encoding: .utf8)
    let result = try Self.typeCheck(file.path)
    #expect(result.status != 0)
    #expect(result.output.contains("cannot find 'cache' in scope"), "\(result.output)")
  }

  /// `swiftc -typecheck` of one file as a program, with this package's modules (and the
  /// C modules and libvips headers they import) on its search paths.
  static func typeCheck(_ path: String, extraArguments: [String] = []) throws -> (
    status: Int32, output: String
  ) {
    let build = Self.buildFolder
    var arguments =
      [
        "swiftc", "-typecheck", "-swift-version", "6", path,
        "-I", build.appendingPathComponent("Modules").path,
      ] + extraArguments
    let moduleMaps = [
      Fixtures.packageRoot.appendingPathComponent("Sources/CVips/module.modulemap").path,
      Fixtures.packageRoot.appendingPathComponent("Sources/CLCMS2/module.modulemap").path,
      build.appendingPathComponent("CVipsShim.build/module.modulemap").path,
      build.appendingPathComponent("ImageToolPluginABI.build/module.modulemap").path,
      Fixtures.packageRoot.appendingPathComponent("Sources/CCurl/module.modulemap").path,
      build.appendingPathComponent("CCurlShim.build/module.modulemap").path,
      build.appendingPathComponent("CMappingGuard.build/module.modulemap").path,
    ]
    for map in moduleMaps { arguments += ["-Xcc", "-fmodule-map-file=\(map)"] }
    for flag in try run(["pkg-config", "--cflags-only-I", "vips"]).output.split(separator: " ") {
      arguments += ["-Xcc", String(flag).trimmingCharacters(in: .whitespacesAndNewlines)]
    }
    return try run(arguments)
  }

  static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
  }
}

import Foundation
import TestFixtures
import Testing

/// Every ```swift block in a DocC comment (`///`) of `Sources/` compiles against the
/// modules this test run built, as README's snippets do (``ReadmeSnippetTests``).
///
/// The rules a snippet is compiled by, so that it can stay short:
/// - It is the body of a `@MainActor` `async throws` function (as top-level code is), so
///   `try`, `await` and local types work; declarations that cannot be local
///   (extensions, protocols) do not belong in a snippet.
/// - `Foundation` and the snippet's own module (the folder under `Sources/`) are
///   imported; an `import` line in the snippet adds that module.
/// - A fragment that uses values it does not make (an `image`, a `table`) declares them
///   in HTML comments on the doc lines just above its fence, which DocC does not render:
///
///   ```
///   /// <!-- snippet context: let image = try VipsImage(file: "photo.jpg") -->
///   /// <!-- snippet context: import ImageTables -->
///   ```
///
///   Each context line is Swift placed before the snippet, in order (imports go to the
///   top of the file). Errors are reported at the snippet's own file and line.
/// - A snippet whose declarations belong at file scope (a plugin's `@_cdecl` functions, a
///   global) says so with `<!-- snippet scope: file -->` above its fence: it is compiled
///   as a file of a library (`-parse-as-library`), its code and context at the top level.
@Suite("DocC snippets")
struct DocCSnippetTests {
  /// One ```swift block of a doc comment.
  struct Snippet: CustomStringConvertible {
    /// The source file, relative to the package root.
    var file: String
    /// The module the file belongs to: its folder under `Sources/`.
    var module: String
    /// The 1-based line of each context line, and its code.
    var context: [(line: Int, code: String)]
    /// The 1-based line of the snippet's first line of code.
    var line: Int
    var code: [String]
    /// Whether the code stands at file scope rather than in a function body.
    var fileScope = false

    var description: String { "\(file):\(line - 1)" }

    /// The modules the snippet needs: its own, and those its code or context imports.
    var imports: [String] {
      let lines = context.map(\.code) + code
      let named = lines.compactMap { line -> String? in
        let words = line.split(separator: " ")
        return words.count == 2 && words[0] == "import" ? String(words[1]) : nil
      }
      return Array(Set(["Foundation", module] + named)).sorted()
    }
  }

  static let marker = "<!-- snippet context:"
  static let fileScopeMarker = "<!-- snippet scope: file -->"

  /// The ```swift blocks of the `///` comments of one Swift file, in order.
  static func snippets(inFile path: String, relativePath: String, module: String) throws
    -> [Snippet]
  {
    let lines = try String(contentsOfFile: path, encoding: .utf8)
      .split(separator: "\n", omittingEmptySubsequences: false)
    var snippets: [Snippet] = []
    var context: [(line: Int, code: String)] = []
    var fileScope = false
    var open: Snippet? = nil
    for (index, line) in lines.enumerated() {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      guard trimmed.hasPrefix("///") else {
        open = nil
        context = []
        fileScope = false
        continue
      }
      var text = trimmed.dropFirst(3)
      if text.first == " " { text = text.dropFirst() }
      let body = text.trimmingCharacters(in: .whitespaces)
      if open == nil, body == "```swift" {
        open = Snippet(
          file: relativePath, module: module, context: context, line: index + 2, code: [],
          fileScope: fileScope)
        context = []
        fileScope = false
      } else if open != nil, body == "```" {
        snippets.append(open!)
        open = nil
      } else if open != nil {
        open!.code.append(String(text))
      } else if body.hasPrefix(marker), body.hasSuffix("-->") {
        let code = body.dropFirst(marker.count).dropLast(3)
        context.append((index + 1, code.trimmingCharacters(in: .whitespaces)))
      } else if body == fileScopeMarker {
        fileScope = true
      } else if !body.isEmpty {
        context = []
        fileScope = false
      }
    }
    return snippets
  }

  /// Every doc-comment snippet of `Sources/`, by file then line.
  static func allSnippets(root: URL) throws -> [Snippet] {
    let sources = root.appendingPathComponent("Sources")
    var snippets: [Snippet] = []
    let modules = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
    for module in modules {
      let folder = sources.appendingPathComponent(module)
      guard let files = FileManager.default.enumerator(atPath: folder.path) else { continue }
      for case let file as String in files where file.hasSuffix(".swift") {
        let relative = "Sources/\(module)/\(file)"
        snippets += try Self.snippets(
          inFile: folder.appendingPathComponent(file).path, relativePath: relative, module: module)
      }
    }
    return snippets.sorted { ($0.file, $0.line) < ($1.file, $1.line) }
  }

  /// One program holding `snippets` (which share their imports), each the body of a
  /// function, with `#sourceLocation` so that errors name the doc comment's own lines.
  static func program(_ snippets: [Snippet]) -> String {
    let imports = snippets[0].imports
    var text = imports.map { "import \($0)\n" }.joined()
    for (number, snippet) in snippets.enumerated() {
      text += snippet.fileScope ? "\n" : "\n@MainActor func snippet\(number)() async throws {\n"
      var next = 0
      for (line, code) in snippet.context where !code.hasPrefix("import ") {
        // One directive for each run of adjacent lines: a declaration may span several.
        if line != next { text += "#sourceLocation(file: \"\(snippet.file)\", line: \(line))\n" }
        text += code + "\n"
        next = line + 1
      }
      text += "#sourceLocation(file: \"\(snippet.file)\", line: \(snippet.line))\n"
      for line in snippet.code where !line.hasPrefix("import ") { text += line + "\n" }
      text += "#sourceLocation()\n" + (snippet.fileScope ? "" : "}\n")
    }
    return text
  }

  /// Type-checks `snippets`, one program per set of imports; the failures' compiler
  /// output.
  static func failures(of snippets: [Snippet], in folder: URL) throws -> [String] {
    // A file-scope snippet is a program of its own: two could declare the same symbols.
    let groups = Dictionary(grouping: snippets) {
      $0.imports.joined(separator: ",") + ($0.fileScope ? " \($0)" : "")
    }
    var failures: [String] = []
    for (number, key) in groups.keys.sorted().enumerated() {
      let file = folder.appendingPathComponent("docc\(number).swift")
      let group = groups[key]!
      try program(group).write(to: file, atomically: true, encoding: .utf8)
      let result = try ReadmeSnippetTests.typeCheck(
        file.path, extraArguments: group[0].fileScope ? ["-parse-as-library"] : [])
      if result.status != 0 || result.output.contains("error:") { failures.append(result.output) }
    }
    return failures
  }

  @Test func sourcesHaveSnippets() throws {
    let snippets = try Self.allSnippets(root: Fixtures.packageRoot)
    // Modules with doc examples: Vips, ImageTables, ImageProcessing, ImageCaching, ...
    #expect(Set(snippets.map(\.module)).isSuperset(of: ["Vips", "ImageTables", "ImageCaching"]))
    #expect(snippets.count >= 30, "\(snippets)")
  }

  @Test func everyDocCSnippetCompiles() throws {
    let snippets = try Self.allSnippets(root: Fixtures.packageRoot)
    let failures = try Self.failures(of: snippets, in: try Fixtures.temporaryFolder())
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
  }

  /// A broken snippet fails, at its own file and line, and its context is what a
  /// fragment may use.
  @Test func aBrokenDocCSnippetIsCaughtAtItsLine() throws {
    let root = try Fixtures.temporaryFolder()
    let folder = root.appendingPathComponent("Sources/Vips")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try """
    /// Works: its context makes `photo`.
    ///
    /// <!-- snippet context: let photo = try VipsImage(file: "photo.jpg") -->
    /// ```swift
    /// let thumb = try photo.resized(scale: 0.5)
    /// ```
    public enum Good {}

    /// Fails: `photo` is not in its scope.
    ///
    /// ```swift
    /// let thumb = try photo.resized(scale: 0.5)
    /// ```
    public enum Bad {}
    """.write(to: folder.appendingPathComponent("Example.swift"), atomically: true, encoding: .utf8)
    let snippets = try Self.allSnippets(root: root)
    #expect(
      snippets.map(\.description) == [
        "Sources/Vips/Example.swift:4", "Sources/Vips/Example.swift:11",
      ])
    #expect(try Self.failures(of: [snippets[0]], in: root).isEmpty)
    let failures = try Self.failures(of: [snippets[1]], in: root)
    #expect(failures.count == 1)
    #expect(
      failures.first?.contains(
        "Sources/Vips/Example.swift:12:17: error: cannot find 'photo' in scope")
        == true, "\(failures)")
  }

  /// A file-scope snippet compiles as a library file: `@_cdecl` functions and a global
  /// are fine there, and the same code inside a function body is not.
  @Test func aFileScopeSnippetStandsAtTheTopLevel() throws {
    let root = try Fixtures.temporaryFolder()
    let folder = root.appendingPathComponent("Sources/Vips")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try """
    /// <!-- snippet scope: file -->
    /// ```swift
    /// let answer: Int32 = 42
    ///
    /// @_cdecl("snippet_answer")
    /// public func snippetAnswer() -> Int32 { answer }
    /// ```
    public enum Exported {}

    /// ```swift
    /// @_cdecl("snippet_answer_local")
    /// public func snippetAnswer() -> Int32 { 42 }
    /// ```
    public enum NotExported {}
    """.write(
      to: folder.appendingPathComponent("Exported.swift"), atomically: true, encoding: .utf8)
    let snippets = try Self.allSnippets(root: root)
    #expect(snippets.map(\.fileScope) == [true, false])
    #expect(try Self.failures(of: [snippets[0]], in: root).isEmpty)
    let failures = try Self.failures(of: [snippets[1]], in: root)
    #expect(
      failures.first?.contains("error: attribute '_cdecl' can only be used in a non-local scope")
        == true, "\(failures)")
  }
}

import Foundation
import Testing

@testable import PhotoViewer

/// An executable shell script `name` in `folder` running `body`.
func script(_ name: String, in folder: URL, _ body: String) throws -> URL {
  let url = folder.appendingPathComponent(name)
  try Data(("#!/bin/sh\n" + body + "\n").utf8).write(to: url)
  try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
  return url
}

@MainActor
@Suite(.timeLimit(.minutes(1))) struct BackgroundRenderTests {
  /// Runs `render` until it has ended (the suite's time limit bounds the wait).
  func ended(_ render: BackgroundRender) async throws {
    var changes = 0
    render.didChange = { changes += 1 }
    try render.start()
    while render.isRunning { try await Task.sleep(for: .milliseconds(10)) }
    #expect(changes > 0)
  }

  @Test func readsTheProgressLinesImgtoolPrints() {
    #expect(BackgroundRender.parse("[3/12] photos/a.jpg: written")! == (3, 12, "written"))
    #expect(
      BackgroundRender.parse("[1/2] b.png: failed: not an image: x")! == (
        1, 2, "failed: not an image: x"
      ))
    #expect(BackgroundRender.parse("render: family photo: 5 photos") == nil)
    #expect(BackgroundRender.parse("[a/b] x: written") == nil)
    #expect(
      BackgroundRender.arguments(
        folder: URL(fileURLWithPath: "/p"), cache: URL(fileURLWithPath: "/c"), family: "photo",
        manifest: "m.json")
        == ["render", "--family", "photo", "--cache", "/c", "--wait", "--manifest", "m.json", "/p"])
  }

  @Test func followsARenderToItsEnd() async throws {
    let folder = try scratchFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let imgtool = try script(
      "imgtool", in: folder,
      """
      echo "$@" > "\(folder.path)/arguments"
      echo "imgtool: /c: another process is writing this cache; waiting for it" >&2
      echo "[1/3] p/a.jpg: written" >&2
      echo "[2/3] p/b.jpg: failed: cannot decode" >&2
      printf "[3/3] p/c.jpg: up to date" >&2
      echo "render: family photo: 3 photos"
      """)
    let render = BackgroundRender(
      imgtool: imgtool, arguments: ["render", "--family", "photo", "/p"])
    #expect(render.state == .starting)
    #expect(render.statusText == "rendering…")
    try await ended(render)
    #expect(render.state == .finished(.init(done: 3, total: 3, failed: 1, leftOut: 0)))
    #expect(render.statusText == "rendered 3 photos; 1 failed")
    #expect(
      render.messages == ["imgtool: /c: another process is writing this cache; waiting for it"])
    let arguments = try String(
      contentsOf: folder.appendingPathComponent("arguments"), encoding: .utf8)
    #expect(arguments == "render --family photo /p\n")
  }

  @Test func saysWhyARenderFailed() async throws {
    let folder = try scratchFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let imgtool = try script(
      "imgtool", in: folder, "echo 'imgtool: /p: no such file or folder' >&2; exit 1")
    let render = BackgroundRender(imgtool: imgtool, arguments: [])
    try await ended(render)
    #expect(
      render.state
        == .failed(status: 1, message: "imgtool: /p: no such file or folder", .init()))
    #expect(render.statusText == "render failed (exit 1): imgtool: /p: no such file or folder")
  }

  @Test func findsImgtoolWhereAPersonPutsIt() throws {
    let folder = try scratchFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    for sub in ["given", "bin", "path1", "path2"] {
      try FileManager.default.createDirectory(
        at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
    }
    let given = try script("imgtool", in: folder.appendingPathComponent("given"), "")
    let beside = try script("imgtool", in: folder.appendingPathComponent("bin"), "")
    let onPath = try script("imgtool", in: folder.appendingPathComponent("path2"), "")
    let viewer = folder.appendingPathComponent("bin/photo-viewer")
    let path =
      folder.appendingPathComponent("path1").path + ":" + onPath.deletingLastPathComponent().path
    func found(_ environment: [String: String], _ executable: URL = viewer) -> String? {
      BackgroundRender.locateImgtool(environment: environment, executable: executable).found?.path
    }
    #expect(found(["IMGTOOL": given.path, "PATH": path]) == given.path)
    #expect(found(["PATH": path]) == beside.path)
    let elsewhere = folder.appendingPathComponent("path1/photo-viewer")
    #expect(found(["PATH": path], elsewhere) == onPath.path)
    let none = BackgroundRender.locateImgtool(
      environment: ["PATH": "/nonexistent"], executable: elsewhere)
    #expect(none.found == nil)
    #expect(
      none.looked == [folder.appendingPathComponent("path1/imgtool").path, "/nonexistent/imgtool"])
  }
}

import Foundation
import ImageTables
import Testing
import Vips

@testable import ImageToolCLI

#if canImport(Glibc)
  import Glibc
#endif

/// The folder walk of `imgtool render`: links followed (each folder and photo once),
/// names taken as bytes, and every file or folder left out named with why.
@Suite("imgtool render's folder walk")
struct FolderWalkTests {
  /// Writes `contents` to the file whose path is `bytes` (a name that need not be UTF-8).
  private func write(_ contents: Data, toPathBytes bytes: [UInt8]) throws {
    let descriptor = (bytes + [0]).withUnsafeBufferPointer {
      $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o644) }
    }
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    let written = contents.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress!, $0.count) }
    try #require(written == contents.count)
  }

  /// A UNIX socket bound at `path` (left open: a socket file stays after close too).
  private func makeSocket(at path: String) throws {
    let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    try #require(socket >= 0)
    defer { close(socket) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    try #require(bound == 0)
  }

  private func copy(_ photo: String, to path: String) throws {
    try FileManager.default.copyItem(atPath: Paths.bundled(photo), toPath: path)
  }

  private func link(_ path: String, to target: String) throws {
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
  }

  private func entityIDs(_ cache: String) throws -> [String] {
    try ImageTable(existingTableAt: cache + "/avatar.small.table").entries().map(\.entityID)
      .sorted()
  }

  @Test func hiddenPhotosAndFoldersAreNamedAsLeftOutAndRenderWhenNamedDirectly() async throws {
    let root = try Paths.temporaryFolder()
    let photos = root.appendingPathComponent("photos").path
    try FileManager.default.createDirectory(
      atPath: photos + "/.thumbs", withIntermediateDirectories: true)
    try copy("rocket.jpg", to: photos + "/a.jpg")
    try copy("chelsea.png", to: photos + "/.photo.jpg")
    try copy("coffee.png", to: photos + "/.thumbs/b.png")
    try copy("coffee.png", to: photos + "/.png")
    // Hidden, but no image extension: passed over as any such file is.
    try Data("mac".utf8).write(to: URL(fileURLWithPath: photos + "/.DS_Store"))

    let cache = root.appendingPathComponent("cache").path
    let result = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--quiet", photos,
    ])
    #expect(result.status == 0)
    #expect(
      result.err == [
        "imgtool: render: left out: \(photos)/.photo.jpg: a hidden file (name it directly to "
          + "render it)",
        "imgtool: render: left out: \(photos)/.png: a hidden file (name it directly to render it)",
        "imgtool: render: left out: \(photos)/.thumbs: a hidden folder, not walked (name it "
          + "directly to render its photos)",
      ])
    #expect(
      result.out.first?.hasPrefix(
        "render: family avatar: 1 photo: 1 rendered, 0 up to date, 0 failed; 3 entries written")
        == true, "\(result.out)")
    #expect(try entityIDs(cache) == ["a.jpg"])
    // Named directly, the hidden file and the hidden folder's photo render.
    let named = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--quiet", photos + "/.photo.jpg",
      photos + "/.thumbs",
    ])
    #expect(named.status == 0 && named.err.isEmpty, "\(named.err)")
    #expect(try entityIDs(cache) == [".photo.jpg", "a.jpg", "b.png"])
    // A folder holding only hidden photos is not said to hold no image file.
    let only = root.appendingPathComponent("only").path
    try FileManager.default.createDirectory(atPath: only, withIntermediateDirectories: true)
    try copy("rocket.jpg", to: only + "/.r.jpg")
    let hiddenOnly = await runTool(["render", "--family", "avatar", "--cache", cache, only])
    #expect(hiddenOnly.status == 1)
    #expect(
      hiddenOnly.err == [
        "imgtool: render: left out: \(only)/.r.jpg: a hidden file (name it directly to render it)",
        "imgtool: render: no photo to render in \(only); nothing was written",
      ])
  }

  /// A file whose extension is an image format only a blocked loader reads is named as
  /// left out with why (a note: the render still succeeds); a README or a CSV table is
  /// passed over without a word, as before.
  @Test func filesOnlyABlockedLoaderReadsAreNamedAsLeftOut() async throws {
    let root = try Paths.temporaryFolder()
    let photos = root.appendingPathComponent("photos").path
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    try copy("rocket.jpg", to: photos + "/a.jpg")
    // A BMP's signature and header size, as far as the refusal below reads.
    try Data(Array("BM".utf8) + [UInt8](repeating: 0, count: 62))
      .write(to: URL(fileURLWithPath: photos + "/b.BMP"))
    try Data("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8)
      .write(to: URL(fileURLWithPath: photos + "/c.svg"))
    try Data("notes".utf8).write(to: URL(fileURLWithPath: photos + "/README.txt"))
    try Data("1,2\n".utf8).write(to: URL(fileURLWithPath: photos + "/d.csv"))

    let cache = root.appendingPathComponent("cache").path
    let result = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--quiet", photos,
    ])
    #expect(result.status == 0)
    let why =
      "and that loader is blocked for untrusted input: its parser was never hardened "
      + "(fuzzed) against hostile files, and photos never need it"
    #expect(
      result.err == [
        "imgtool: render: left out: \(photos)/b.BMP: BMP images are read only by ImageMagick's "
          + "loader 'magickload', \(why)",
        "imgtool: render: left out: \(photos)/c.svg: SVG drawings are read only by libvips's "
          + "loader 'svgload', \(why)",
      ], "\(result.err)")
    #expect(try entityIDs(cache) == ["a.jpg"])
    // Named directly, the BMP is refused with the same loader named.
    let named = await runTool(["render", "--family", "avatar", "--cache", cache, photos + "/b.BMP"])
    #expect(named.status == 1)
    #expect(
      named.out.contains {
        $0.contains("b.BMP: it is a BMP image, which only ImageMagick's loader")
      },
      "\(named.out) \(named.err)")
  }

  @Test func linksAreFollowedEachPhotoOnceAndWhatIsLeftOutIsNamed() async throws {
    let root = try Paths.temporaryFolder()
    let photos = root.appendingPathComponent("photos").path
    let outside = root.appendingPathComponent("outside").path
    for folder in [photos + "/sub", outside] {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }
    try copy("rocket.jpg", to: photos + "/a.jpg")
    try copy("chelsea.png", to: outside + "/c.png")
    try link(photos + "/link-to-a.jpg", to: "a.jpg")
    try link(photos + "/outlink", to: "../outside")
    try link(photos + "/sub/up", to: "..")
    try link(photos + "/again", to: "sub")
    try link(photos + "/x.jpg", to: "y.jpg")
    try link(photos + "/y.jpg", to: "x.jpg")
    try link(photos + "/dangling.jpg", to: "missing.jpg")
    #expect(mkfifo(photos + "/fifo.jpg", 0o600) == 0)
    try makeSocket(at: photos + "/sock.png")
    // A name that is not UTF-8: "caf" then the bytes 0xff 0xfe.
    try write(
      Data(contentsOf: URL(fileURLWithPath: Paths.bundled("coffee.png"))),
      toPathBytes: Array((photos + "/caf").utf8) + [0xff, 0xfe] + Array(".png".utf8))

    let cache = root.appendingPathComponent("cache").path
    let result = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--quiet", photos,
    ])
    #expect(result.status == 1)
    #expect(
      result.err == [
        "imgtool: render: left out: \(photos)/again: a symbolic link to \(photos)/sub, walked "
          + "already (its photos are rendered once, under that name)",
        "imgtool: render: left out: \(photos)/sub/up: a symbolic link loop: it leads to "
          + "\(photos), which holds it",
        "imgtool: render: left out: \(photos)/link-to-a.jpg: the same file as \(photos)/a.jpg "
          + "(rendered once, under that name)",
      ])
    let summary = result.out.first ?? ""
    #expect(
      summary.hasPrefix(
        "render: family avatar: 8 photos: 3 rendered, 0 up to date, 5 failed; 9 entries written"))
    let loop = "a symbolic link loop: it leads to"
    let failed: [String] = [
      "  failed: \(photos)/dangling.jpg: a symbolic link to missing.jpg, which does not exist",
      "  failed: \(photos)/fifo.jpg: not a regular file (a FIFO)",
      "  failed: \(photos)/sock.png: not a regular file (a socket)",
      "  failed: \(photos)/x.jpg: \(loop) y.jpg, and the links from there never reach a file",
      "  failed: \(photos)/y.jpg: \(loop) x.jpg, and the links from there never reach a file",
    ]
    #expect(Array(result.out.dropFirst().prefix(5)) == failed)
    // The name that is not UTF-8 keeps its bytes, escaped losslessly (\xff\xfe).
    #expect(try entityIDs(cache) == ["a.jpg", "caf\\xff\\xfe.png", "outlink/c.png"])
  }

  /// A UTF-8 name that spells out the escape of another file's name ("caf\xff.png" and
  /// "caf" 0xff ".png") would get the same entity id: the second is named, not dropped.
  @Test func aNameThatSpellsAnotherNamesEscapeIsNamedNotDropped() async throws {
    let root = try Paths.temporaryFolder()
    let photos = root.appendingPathComponent("photos").path
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    try write(
      Data(contentsOf: URL(fileURLWithPath: Paths.bundled("coffee.png"))),
      toPathBytes: Array((photos + "/caf").utf8) + [0xff] + Array(".png".utf8))
    try copy("chelsea.png", to: photos + "/caf\\xff.png")
    let cache = root.appendingPathComponent("cache").path
    let result = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--quiet", photos,
    ])
    #expect(result.status == 1)
    #expect(
      result.out.first?.hasPrefix(
        "render: family avatar: 2 photos: 1 rendered, 0 up to date, 1 failed") == true,
      "\(result.out)")
    #expect(
      result.out.contains {
        $0.hasPrefix("  failed: \(photos)/caf\\xff.png: its entity id 'caf\\xff.png' is also ")
      }, "\(result.out)")
    #expect(try entityIDs(cache) == ["caf\\xff.png"])
  }

  @Test func aNameThatIsNotUTF8IsEscapedLosslessly() {
    #expect(PathText.text(Array("café.png".utf8)) == "café.png")
    #expect(PathText.text([0x61, 0xff, 0x5c, 0x62]) == "a\\xff\\\\b")
    #expect(PathText.text([0xc3, 0xa9, 0xc3]) == "é\\xc3")
    // And back: every escaped text gives its bytes; a UTF-8 text is its own.
    for bytes: [UInt8] in [
      [0x61, 0xff, 0x5c, 0x62], [0xc3, 0xa9, 0xc3], [0x80], [0x5c, 0xfe, 0x5c],
    ] {
      #expect(PathText.bytes(PathText.text(bytes)) == bytes)
    }
    #expect(PathText.bytes("a\\xffb") == [0x61, 0xff, 0x62])
    #expect(PathText.bytes("caf\\xc3\\xa9") == nil)
    #expect(PathText.bytes("plain.jpg") == nil)
  }

  /// A file whose name is not UTF-8 given itself (the shell passes its bytes): info,
  /// info --check, apply and render read it; its id and messages show it escaped.
  @Test func aNameThatIsNotUTF8GivenItselfWorks() throws {
    let root = try Paths.temporaryFolder()
    try write(
      Data(contentsOf: URL(fileURLWithPath: Paths.bundled("coffee.png"))),
      toPathBytes: Array((root.path + "/caf").utf8) + [0xff, 0xfe] + Array(".png".utf8))
    let name = #""$(printf 'caf\377\376.png')""#
    let tool = "'\(Paths.executable.path)'"
    func shell(_ line: String) throws -> (status: Int32, out: String, err: String) {
      try runExecutable(["-c", line], in: root, program: URL(fileURLWithPath: "/bin/sh"))
    }
    let info = try shell("\(tool) info --check \(name)")
    #expect(
      info.out
        == "caf\\xff\\xfe.png: 600x400, 3 bands, 8-bit, srgb, pngload, orientation 1, no alpha, "
        + "no ICC profile, pixels ok\n")
    #expect(info.status == 0 && info.err.isEmpty)
    let apply = try shell("\(tool) apply --pipeline fill --size 32x32 \(name) out.png")
    #expect(apply.status == 0 && apply.err.isEmpty)
    #expect(apply.out.hasPrefix("out.png: 32x32 bgra32 from caf\\xff\\xfe.png through fill"))
    let render = try shell("\(tool) render --family avatar --cache cache --quiet \(name)")
    #expect(render.status == 0 && render.err.isEmpty)
    #expect(try entityIDs(root.path + "/cache") == ["caf\\xff\\xfe.png"])
  }

  @Test func aPathLongerThanTheSystemsLimitIsNamed() async throws {
    let root = try Paths.temporaryFolder()
    let photos = root.appendingPathComponent("long").path
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    try copy("rocket.jpg", to: photos + "/top.jpg")
    // FileManager cannot remove a path this long (the scratch folder's removal stops at
    // it): rm can.
    defer {
      let remove = Process()
      remove.executableURL = URL(fileURLWithPath: "/bin/rm")
      remove.arguments = ["-rf", photos]
      if (try? remove.run()) != nil { remove.waitUntilExit() }
    }
    // Folders of 200 bytes each, made one inside the other from the one before
    // (mkdirat), until the path is longer than PATH_MAX.
    let segment = String(repeating: "d", count: 200)
    var path = photos
    var folder = open(photos, O_RDONLY | O_DIRECTORY)
    while path.utf8.count < Int(PATH_MAX) + 100 {
      #expect(mkdirat(folder, segment, 0o755) == 0)
      let next = openat(folder, segment, O_RDONLY | O_DIRECTORY)
      close(folder)
      folder = next
      path += "/" + segment
    }
    let photo = openat(folder, "deep.jpg", O_WRONLY | O_CREAT, 0o644)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: Paths.bundled("rocket.jpg")))
    _ = bytes.withUnsafeBytes { Glibc.write(photo, $0.baseAddress!, $0.count) }
    close(photo)
    close(folder)
    let cache = root.appendingPathComponent("cache").path
    let result = await runTool([
      "render", "--family", "avatar", "--cache", cache, "--quiet", photos,
    ])
    #expect(result.status == 1)
    // The first folder whose path is too long to stat is the one named.
    let prefix =
      photos
      + String(repeating: "/" + segment, count: (Int(PATH_MAX) - photos.utf8.count) / 201 + 1)
    #expect(
      result.out.dropFirst().first
        == "  failed: \(prefix): the path is longer than the system's limit of 4096 bytes")
    #expect(try entityIDs(cache) == ["top.jpg"])
  }

  /// Root reads any folder, so root runs it as `nobody`, from copies of the launcher and
  /// engine in a folder `nobody` may enter, wherever the clone is (in a 0700 folder,
  /// `nobody` reaches no build folder: the launcher exited 69 there).
  @Test func aFolderThisUserCannotReadIsNamed() async throws {
    try await withFolderEveryoneReads { root in
      let program = try copiedTool(into: root)
      #expect(chmod(root.path, 0o777) == 0)
      let photos = root.appendingPathComponent("photos").path
      try FileManager.default.createDirectory(
        atPath: photos + "/locked", withIntermediateDirectories: true)
      try copy("rocket.jpg", to: photos + "/a.jpg")
      try copy("chelsea.png", to: photos + "/locked/l.png")
      #expect(chmod(photos + "/locked", 0) == 0)
      defer { chmod(photos + "/locked", 0o755) }
      let cache = root.appendingPathComponent("cache").path
      let result = try runAsAnotherUser(
        ["render", "--family", "avatar", "--cache", cache, "--quiet", photos], program: program)
      #expect(result.status == 1, "\(result.err)")
      let lines = result.out.split(separator: "\n").map(String.init)
      #expect(
        lines.first?.hasPrefix(
          "render: family avatar: 2 photos: 1 rendered, 0 up to date, 1 failed") == true)
      #expect(
        lines.dropFirst().first
          == "  failed: \(photos)/locked: cannot read the folder: permission denied")
      #expect(try entityIDs(cache) == ["a.jpg"])
    }
  }

  @Test func aFIFOOrSocketGivenItselfIsNamedNotOpened() async throws {
    let root = try Paths.temporaryFolder()
    let fifo = root.appendingPathComponent("given.jpg").path
    #expect(mkfifo(fifo, 0o600) == 0)
    let render = await runTool([
      "render", "--family", "avatar", "--cache", root.appendingPathComponent("cache").path,
      fifo,
    ])
    #expect(render.status == 1)
    #expect(render.err.contains("imgtool: render: \(fifo): not a regular file (a FIFO)"))
    let info = await runTool(["info", fifo])
    #expect(info.status == 1)
    #expect(info.err == ["imgtool: \(fifo): cannot read the file: not a regular file (a FIFO)"])
    let long =
      "/" + Array(repeating: String(repeating: "d", count: 200), count: 21).joined(separator: "/")
      + "/a.jpg"
    let tooLong = await runTool(["info", long])
    #expect(
      tooLong.err == [
        "imgtool: \(long): cannot read the file: the path is longer than the system's limit of 4096 bytes"
      ])
    let limit = "the path is longer than the system's limit of 4096 bytes"
    let applied = await runTool([
      "apply", "--pipeline", "fill", "--size", "32x32", long,
      root.appendingPathComponent("out.png").path,
    ])
    #expect(applied.status == 1)
    #expect(applied.err == ["imgtool: \(long): cannot read the file: \(limit)"])
    let rendered = await runTool([
      "render", "--family", "avatar", "--cache", root.appendingPathComponent("cache").path,
      long,
    ])
    #expect(rendered.status == 1)
    #expect(rendered.err.contains("imgtool: render: \(long): \(limit)"))
    let device = await runTool(["info", "/dev/zero"])
    #expect(
      device.err == [
        "imgtool: /dev/zero: cannot read the file: not a regular file (a character device)"
      ])
  }
}

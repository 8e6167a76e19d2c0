import CGtk
import Testing

@testable import PhotoViewer

@Suite struct ViewerOptionsTests {
  @Test func readsTheOptionsEitherWay() throws {
    let options = try ViewerOptions(
      arguments: ["--cache", "out/cache", "--family=photo", "--manifest", "imgtool.json"])
    #expect(options.cache == "out/cache")
    #expect(options.family == "photo")
    #expect(options.manifest == "imgtool.json")
  }

  @Test(arguments: [
    (["--family", "photo"], "--cache DIR is required"),
    (["--cache", "c"], "--family NAME is required"),
    (["--cache", "c", "--family", "photo", "--zoom", "2"], "unknown option '--zoom'"),
    (["--cache", "c", "--cache", "d", "--family", "photo"], "--cache is given twice"),
    (["--cache", "--family", "photo"], "--cache needs a value"),
    (["--cache", "c", "--family", "photo", "extra"], "unexpected argument 'extra'"),
  ])
  func saysWhatIsWrong(arguments: [String], message: String) {
    #expect {
      try ViewerOptions(arguments: arguments)
    } throws: { error in
      guard let error = error as? ViewerError, case .usage = error else { return false }
      return error.description.hasPrefix(message + "\nusage: photo-viewer --cache DIR")
        && error.exitStatus == 64
    }
  }

  @Test func keysPageAsAPersonExpects() {
    #expect(ViewerWindow.move(forKey: UInt32(GDK_KEY_Right)) == .next)
    #expect(ViewerWindow.move(forKey: UInt32(GDK_KEY_Page_Down)) == .next)
    #expect(ViewerWindow.move(forKey: UInt32(GDK_KEY_Left)) == .previous)
    #expect(ViewerWindow.move(forKey: UInt32(GDK_KEY_Page_Up)) == .previous)
    #expect(ViewerWindow.move(forKey: UInt32(GDK_KEY_Home)) == .first)
    #expect(ViewerWindow.move(forKey: UInt32(GDK_KEY_End)) == .last)
    #expect(ViewerWindow.move(forKey: UInt32(GDK_KEY_a)) == nil)
  }
}

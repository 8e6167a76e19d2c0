import CGtk
import Testing

@testable import PhotoViewer

@Suite struct ViewerOptionsTests {
  @Test func readsTheOptionsEitherWay() throws {
    let options = try ViewerOptions(
      arguments: ["--cache", "out/cache", "--family=avatar", "--manifest", "imgtool.json"])
    #expect(options.folder == nil)
    #expect(options.cache == "out/cache")
    #expect(options.family == "avatar")
    #expect(options.manifest == "imgtool.json")
    #expect(!options.help)
  }

  @Test func aFolderAloneShowsThePhotoFamily() throws {
    let options = try ViewerOptions(arguments: ["Pictures"])
    #expect(options.folder == "Pictures")
    #expect(options.cache == nil)
    #expect(options.family == "photo")
    let both = try ViewerOptions(arguments: ["--cache", "c", "Pictures"])
    #expect(both.folder == "Pictures")
    #expect(both.cache == "c")
  }

  @Test func helpNeedsNothingElse() throws {
    #expect(try ViewerOptions(arguments: ["--help"]).help)
    #expect(try ViewerOptions(arguments: ["-h"]).help)
    #expect(ViewerOptions.help.contains(ViewerOptions.usage))
    #expect(ViewerOptions.help.contains("  F11, f                       fullscreen, and back"))
  }

  @Test(arguments: [
    ([], "give a FOLDER of photos, or --cache DIR"),
    (["--family", "photo"], "give a FOLDER of photos, or --cache DIR"),
    (["--cache", "c", "--zoom", "2"], "unknown option '--zoom'"),
    (["-z", "Pictures"], "unknown option '-z'"),
    (["--cache", "c", "--cache", "d"], "--cache is given twice"),
    (["--cache", "--family", "photo"], "--cache needs a value"),
    (["a", "b"], "one folder at a time: 'a' and 'b' were given"),
  ])
  func saysWhatIsWrong(arguments: [String], message: String) {
    #expect {
      try ViewerOptions(arguments: arguments)
    } throws: { error in
      guard let error = error as? ViewerError, case .usage = error else { return false }
      return error.description.hasPrefix(message + "\nusage: photo-viewer FOLDER [--cache DIR]")
        && error.description.hasSuffix("(photo-viewer --help says more, and lists the keys)")
        && error.exitStatus == 64
    }
  }

  @Test(arguments: [
    (GDK_KEY_Right, ViewerAction.page(.next)), (GDK_KEY_Page_Down, .page(.next)),
    (GDK_KEY_space, .page(.next)), (GDK_KEY_Left, .page(.previous)),
    (GDK_KEY_Page_Up, .page(.previous)), (GDK_KEY_BackSpace, .page(.previous)),
    (GDK_KEY_Home, .page(.first)), (GDK_KEY_End, .page(.last)),
    (GDK_KEY_plus, .zoomIn), (GDK_KEY_equal, .zoomIn), (GDK_KEY_KP_Add, .zoomIn),
    (GDK_KEY_minus, .zoomOut), (GDK_KEY_KP_Subtract, .zoomOut),
    (GDK_KEY_1, .actualSize), (GDK_KEY_0, .fit),
    (GDK_KEY_F11, .toggleFullscreen), (GDK_KEY_f, .toggleFullscreen),
    (GDK_KEY_Escape, .leave), (GDK_KEY_q, .leave), (GDK_KEY_question, .toggleHelp),
  ])
  func keysDoWhatAPersonExpects(key: Int32, action: ViewerAction) {
    #expect(ViewerKeys.action(forKey: UInt32(key)) == action)
  }

  @Test func otherKeysDoNothing() {
    for key in [GDK_KEY_a, GDK_KEY_2, GDK_KEY_Return, GDK_KEY_Tab] {
      #expect(ViewerKeys.action(forKey: UInt32(key)) == nil)
    }
  }
}

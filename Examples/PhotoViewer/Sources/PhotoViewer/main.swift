// photo-viewer FOLDER | --cache DIR [--family NAME] [--manifest FILE]
//
// A GTK 4 window over a family of photos: the browser pages through them (the
// family's largest format), the scrubber across the bottom shows their thumbnails (the
// smallest format), and every pixel is drawn straight from the tables' bytes, which the
// viewer opens read-only. A folder is rendered in the background by imgtool, each photo
// shown as soon as its entries land.

import CGtk
import CGtkShim
import Foundation

func fail(_ error: any Error) -> Never {
  FileHandle.standardError.write(Data("photo-viewer: \(error)\n".utf8))
  exit((error as? ViewerError)?.exitStatus ?? 1)
}

MainActor.assumeIsolated {
  let model: ViewerModel
  let options: ViewerOptions
  do {
    options = try ViewerOptions(arguments: Array(CommandLine.arguments.dropFirst()))
    if options.help {
      print(ViewerOptions.help)
      exit(0)
    }
    model = try ViewerModel(options: options) { note in
      FileHandle.standardError.write(Data("photo-viewer: \(note)\n".utf8))
    }
  } catch {
    fail(error)
  }
  var imgtool: URL?
  if case .folder = model.source {
    let located = BackgroundRender.locateImgtool(
      environment: ProcessInfo.processInfo.environment,
      executable: URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL)
    guard let found = located.found else { fail(ViewerError.noImgtool(looked: located.looked)) }
    imgtool = found
  }
  guard gtk_init_check() != 0 else {
    fail(ViewerError.noDisplay(ProcessInfo.processInfo.environment["DISPLAY"]))
  }
  viewer_prefer_dark_theme()
  // Where the window manager composites nothing, GTK frames its window with a border of
  // its own ("solid-csd"), which it keeps in fullscreen: there the photo fills the screen.
  viewer_add_css("window.solid-csd.fullscreen { padding: 0; border: none; box-shadow: none; }")
  // The browser's loads and the render's progress report on the main actor; GLib's loop
  // must run it.
  guard viewer_attach_main_queue() != 0 else { fail(ViewerError.noMainQueue) }
  if let imgtool {
    do {
      try model.startRender(imgtool: imgtool, manifest: options.manifest)
    } catch {
      fail(error)
    }
  }
  let loop = g_main_loop_new(nil, 0)!
  let window = ViewerWindow(model: model, loop: loop)
  window.present()
  // GTK's callbacks hold the window unretained: it must outlive the loop.
  withExtendedLifetime(window) { g_main_loop_run(loop) }
  model.stopRender()
  g_main_loop_unref(loop)
}

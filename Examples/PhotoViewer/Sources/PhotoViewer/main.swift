// photo-viewer --cache DIR --family NAME [--manifest FILE]
//
// A GTK 4 window over a rendered family: the browser pages through its photos (the
// family's largest format), the scrubber across the bottom shows its thumbnails (the
// smallest format), and every pixel is drawn straight from the tables' bytes.

import CGtk
import CGtkShim
import Foundation

func fail(_ error: any Error) -> Never {
  FileHandle.standardError.write(Data("photo-viewer: \(error)\n".utf8))
  exit((error as? ViewerError)?.exitStatus ?? 1)
}

MainActor.assumeIsolated {
  let model: ViewerModel
  do {
    model = try ViewerModel(
      options: ViewerOptions(arguments: Array(CommandLine.arguments.dropFirst())))
  } catch {
    fail(error)
  }
  guard gtk_init_check() != 0 else {
    fail(ViewerError.noDisplay(ProcessInfo.processInfo.environment["DISPLAY"]))
  }
  viewer_prefer_dark_theme()
  // The browser's loads report on the main actor; GLib's loop must run it.
  guard viewer_attach_main_queue() != 0 else { fail(ViewerError.noMainQueue) }
  let loop = g_main_loop_new(nil, 0)!
  let window = ViewerWindow(model: model, loop: loop)
  window.present()
  // GTK's callbacks hold the window unretained: it must outlive the loop.
  withExtendedLifetime(window) { g_main_loop_run(loop) }
  g_main_loop_unref(loop)
}

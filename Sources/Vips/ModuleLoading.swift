import CVips
import Foundation
import Locking

/// How ``Vips/start()`` starts libvips without loading its modules, and loads the
/// trusted ones only when a file needs them.
///
/// libvips 8.14 loads every module in `vips-modules-8.14` when it starts: ImageMagick,
/// Poppler (PDF) and OpenSlide bring dozens of libraries and about 20 ms of start-up,
/// only for loaders that ``Vips/start()`` then blocks as untrusted, and HEIF and
/// JPEG XL another 8 ms that JPEG, PNG, WebP, GIF and TIFF (built into libvips) never
/// need. libvips finds its modules under `$VIPSHOME/lib`; while it starts, `VIPSHOME`
/// points where there are none. When no built-in loader (or saver) knows a file, the
/// trusted modules are loaded with GLib's module loader, which registers their
/// operations as libvips itself would, and the file is tried again. A `VIPSHOME` set
/// by the user is left alone, and then libvips loads what it finds there.
enum ModuleLoading {
  /// Modules whose every loader and saver libvips 8.14 marks untrusted.
  static let untrusted: Set<String> = ["vips-magick.so", "vips-poppler.so", "vips-openslide.so"]

  /// Runs `start` (libvips's init) with module loading turned off; returns its status.
  static func startWithoutModules(_ start: () -> Int32) -> Int32 {
    guard getenv("VIPSHOME") == nil else { return start() }
    setenv("VIPSHOME", "/nonexistent/imagetool-loads-trusted-modules-itself", 1)
    let status = start()
    unsetenv("VIPSHOME")
    if status == 0 { state.withLock { $0.deferredFolder = modulesFolder() } }
    return status
  }

  /// The folder of the modules not loaded yet (nil once loaded, or if libvips loaded
  /// them), and how many times this process loaded modules (0 or 1).
  private struct State {
    var deferredFolder: String?
    var loads = 0
  }
  private static let state = Lock(State())

  /// How many times modules were loaded into this process so far. A loader lookup that
  /// failed when this was lower may succeed now: read it before the lookup, and after
  /// ``loadTrustedModules()`` compare (another thread may have loaded them meanwhile, and
  /// then this thread's own call loads nothing).
  static var loads: Int { state.withLock { $0.loads } }

  /// Loads the trusted modules if they were deferred and are not loaded yet; returns
  /// whether this call loaded any. When it returns, any deferred modules are loaded
  /// (a call made while another thread loads them waits for it).
  @discardableResult
  static func loadTrustedModules() -> Bool {
    state.withLock { state in
      guard let path = state.deferredFolder else { return false }
      state.deferredFolder = nil
      let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
      var loaded = false
      for name in names.sorted() where name.hasSuffix(".so") && !untrusted.contains(name) {
        loaded = load(path + "/" + name) || loaded
      }
      if loaded { state.loads += 1 }
      return loaded
    }
  }

  /// glibc's `Dl_info`, which Swift's Glibc module does not export.
  private struct SharedObjectInfo {
    var fileName: UnsafePointer<CChar>? = nil
    var fileBase: UnsafeMutableRawPointer? = nil
    var symbolName: UnsafePointer<CChar>? = nil
    var symbolAddress: UnsafeMutableRawPointer? = nil
  }
  private typealias AddressInfo =
    @convention(c) (UnsafeRawPointer?, UnsafeMutableRawPointer) -> Int32

  /// `vips-modules-MAJOR.MINOR` beside the libvips library this process runs.
  static func modulesFolder() -> String? {
    guard let process = dlopen(nil, RTLD_NOW), let dladdr = dlsym(process, "dladdr"),
      let vipsSymbol = dlsym(process, "vips_version")
    else { return nil }
    var info = SharedObjectInfo()
    let found = withUnsafeMutablePointer(to: &info) {
      unsafeBitCast(dladdr, to: AddressInfo.self)(vipsSymbol, UnsafeMutableRawPointer($0))
    }
    guard found != 0, let file = info.fileName else { return nil }
    let library = URL(fileURLWithPath: String(cString: file)).resolvingSymlinksInPath()
    return library.deletingLastPathComponent()
      .appendingPathComponent("vips-modules-\(vips_version(0)).\(vips_version(1))").path
  }

  private typealias ModuleOpen = @convention(c) (UnsafePointer<CChar>?, Int32) -> OpaquePointer?

  /// Loads one module with GLib's `g_module_open` (libvips links GModule), which runs
  /// the module's `g_module_check_init` and so registers its operations.
  static func load(_ path: String) -> Bool {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "g_module_open") else { return false }
    let open = unsafeBitCast(symbol, to: ModuleOpen.self)
    return open(path, 1) != nil  // G_MODULE_BIND_LAZY; kept loaded, as libvips keeps its own
  }
}

import CVips
import CVipsShim
import Foundation

/// The process-wide libvips runtime: start-up, settings and diagnostics.
///
/// Every entry point of this module starts libvips on first use, so calling
/// ``start()`` yourself is only needed to surface a start-up failure early:
///
/// ```swift
/// try Vips.start()
/// let image = try VipsImage(file: "photo.jpg")
/// ```
public enum Vips {
  private static let startResult: Result<Void, VipsError> = {
    // Started already by another copy of this module in the process (a Swift processor
    // plugin has one, see ImageToolPluginKit): its settings (a render's concurrency)
    // and its warning log stay as that copy made them. libvips started by other code
    // gets the settings below.
    if let argv0 = vips_get_argv0(), String(cString: argv0) == argv0Name { return .success(()) }
    guard ModuleLoading.startWithoutModules({ cvips_init(argv0Name) }) == 0 else {
      return .failure(.startFailed(message: takeErrorMessage()))
    }
    // Untrusted loaders (matload, ppmload, svgload, pdfload, ...) parse formats
    // that were never fuzzed for hostile input; photos never need them.
    vips_block_untrusted_set(1)
    // Every image we open is read once; a cache of operations only holds memory.
    vips_cache_set_max(0)
    vips_concurrency_set(Int32(max(1, ProcessInfo.processInfo.activeProcessorCount)))
    // liborc's run-time code generation: see `vectorPathEnabledAtStart`.
    cvips_vector_set_enabled(vectorPathEnabledAtStart ? 1 : 0)
    WarningLog.install()
    return .success(())
  }()

  /// The program name this module starts libvips with, by which a second copy of the
  /// module in the process knows that the first started it.
  static let argv0Name = "imgtool"

  /// Whether libvips's vector path (liborc, which compiles code at run time) is on.
  /// Off unless `IMGTOOL_VIPS_VECTOR=1` is set: 1 `swift test` run in 16 died with a
  /// SIGSEGV inside liborc on a worker thread. `Scripts/measure-orc` measured renders
  /// of the 24 fixture photos 1.13x slower without it (medians of five alternating
  /// runs on a shared 2-core machine); a crash that ends a batch costs more than that.
  static let vectorPathEnabledAtStart =
    ProcessInfo.processInfo.environment["IMGTOOL_VIPS_VECTOR"] == "1"

  /// Whether libvips's vector path (liborc) is on in this process.
  public static var isVectorPathEnabled: Bool {
    try? start()
    return cvips_vector_isenabled() != 0
  }

  /// Starts libvips once per process; safe to call from any thread, any number of times.
  ///
  /// Starts without libvips's modules and loads the trusted ones (HEIF, JPEG XL) when a
  /// file first needs them (the untrusted ones cost start-up time and would be blocked
  /// anyway), blocks libvips's untrusted loaders,
  /// turns the operation cache off, sets the
  /// number of worker threads to the number of cores and captures libvips's
  /// warnings instead of letting them reach standard error (see ``takeWarnings()``).
  public static func start() throws(VipsError) {
    try startResult.get()
  }

  /// The libvips version this process runs, for example `8.14.1`.
  public static var version: String {
    String(cString: vips_version_string())
  }

  /// The number of threads libvips uses for one pipeline.
  public static var concurrency: Int {
    get { Int(vips_concurrency_get()) }
    set { vips_concurrency_set(Int32(max(1, newValue))) }
  }

  /// How many libvips objects (images, operations, regions...) are alive now.
  ///
  /// A program that has released every ``VipsImage`` returns to the count it had
  /// before; tests use this to prove that nothing leaks.
  public static var liveObjectCount: Int {
    var count = 0
    withUnsafeMutablePointer(to: &count) { counter in
      _ = vips_object_map(
        { _, counter, _ in
          counter?.assumingMemoryBound(to: Int.self).pointee += 1
          return nil
        }, counter, nil)
    }
    return count
  }

  /// The warnings libvips raised since the last call, oldest first, and forgets them.
  ///
  /// libvips reports recoverable problems (a JPEG that ends early but still decodes,
  /// an unknown metadata tag) as warnings; the library never prints them.
  public static func takeWarnings() -> [String] {
    WarningLog.take()
  }

  /// Takes libvips's error buffer as one line, each line once, and clears it;
  /// ``LibvipsMessage/noReason`` when it is empty. Given the `source` the error is about,
  /// lines that name another file are left out (``LibvipsMessage/joined(_:source:)``).
  ///
  /// The messages raised on this thread, when there are any, are the whole reason: they
  /// are this thread's alone, those of the libvips workers it ran among them
  /// (`Sources/CVipsShim/ThreadErrors.c`); libvips's one buffer, which any thread's
  /// failure may read, is left to messages of libvips threads outside any threadpool run.
  static func takeErrorMessage(for source: String? = nil) -> String {
    guard let buffer = cvips_thread_errors_take() ?? vips_error_buffer_copy() else {
      return LibvipsMessage.noReason
    }
    defer { g_free(buffer) }
    let text = String(cString: buffer)
    let lines =
      text
      .split(whereSeparator: \.isNewline)
      .map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }
    return LibvipsMessage.joined(lines, source: source)
  }

  /// Forgets the error messages libvips raised on this thread so far, called as the
  /// checks of a new input begin: its refusal then carries its own messages only, never
  /// a line an earlier call on the same thread raised and no one reported (a header
  /// failure dropped with `try?`). In a clean-clone CI's full test run, a cut TIFF's
  /// refusal began with lines no other run gave it ("Not a TIFF or MDI file, bad magic
  /// number 0"); where they came from is not yet known.
  static func forgetThreadErrors() {
    cvips_thread_errors_clear()
  }

  /// Forgets the error messages libvips raised on this thread, and those in its one
  /// buffer.
  static func clearErrors() {
    cvips_thread_errors_clear()
    vips_error_clear()
  }
}

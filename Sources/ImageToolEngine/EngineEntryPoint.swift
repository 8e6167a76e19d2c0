import Dispatch
import Foundation
import ImageProcessing
import ImageToolCLI
import Vips

/// The one entry point of the engine library (`libImageToolEngine.so`), which the
/// `imgtool` launcher loads with `dlopen` and calls with its whole command line (`argv[0]`
/// included), for every command it does not answer itself.
///
/// It applies the batch memory policy, keeps libjxl's debug trace off standard error
/// (``CodecDebugLines``), registers the built-in processors (`--plugin`
/// libraries add theirs as the command line runs), runs the command and ends the
/// process with its exit status: it never returns. The main thread serves the main
/// actor meanwhile, as in a Swift executable (`imgtool browse` draws there).
@_cdecl("imgtool_engine_main")
public func imageToolEngineMain(
  _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  // Each argument as text; one that is not UTF-8 (a file's name) escaped losslessly
  // (`\xff`: see PathText), so that the file it names is still found.
  let arguments = (1..<max(1, Int(argc))).map { index in
    argv[index].map {
      PathText.text(
        Array(UnsafeBufferPointer(start: $0, count: strlen($0)).map { UInt8(bitPattern: $0) }))
    } ?? ""
  }
  MemoryPolicy.applyForBatchWork()
  CodecDebugLines.dropFromStandardError()
  let registry = ProcessorRegistry.withBuiltIns()
  Task {
    let status = await ImageTool(registry: registry).run(arguments)
    exit(status)
  }
  dispatchMain()
}

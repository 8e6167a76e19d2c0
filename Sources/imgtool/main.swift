import ImageToolVersion

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// The launcher: `imgtool --version` is answered here; every other command line goes to
// the engine library beside this executable, which links libvips (see EngineLauncher).
// Linking neither keeps this process's start-up to the Swift runtime alone.
if CommandLine.arguments.dropFirst() == ["--version"] {
  print("imgtool \(ImageToolVersion.number)")
  exit(0)
}
do {
  let engine = try EngineLauncher.load()
  exit(engine(CommandLine.argc, CommandLine.unsafeArgv))
} catch {
  var line = "imgtool: \(error)\n"
  line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
  exit(EngineLauncher.unavailableStatus)
}

import Foundation
import ImageTables
import ImageToolPluginABI
import Locking
import Testing
import Vips

@testable import ImageProcessing

/// A version-2 plugin written against the C interface alone, as one in C would be:
/// `hostProbe(spec: "...")` counts its calls in the fill's memo (key "calls"), records the
/// count it reaches under its spec (``counts(spec:)``), and returns what the host's
/// pipeline `spec` makes of its input.
enum HostProbePlugin {
  nonisolated(unsafe) static let name = strdup("hostProbe")
  nonisolated(unsafe) static let summary = strdup("Runs a host pipeline (a test).")
  nonisolated(unsafe) static let specName = strdup("spec")
  nonisolated(unsafe) static let stringKind = strdup("string")
  nonisolated(unsafe) static let specDefault = strdup("fill")
  nonisolated(unsafe) static let callsKey = strdup("calls")

  /// The count each call reached, by spec: tests running at once use specs of their own.
  private static let reached = Lock([String: [Int]]())

  static func counts(spec: String) -> [Int] { reached.withLock { $0[spec] ?? [] } }

  static let register: ImageToolPluginRegister = { host in
    guard let host, host.pointee.abi_version == 2, let register = host.pointee.register_processor
    else { return 1 }
    var parameter = ImageToolParameter(
      name: specName, kind: stringKind, default_value: specDefault, minimum: 0, maximum: 0,
      summary: summary)
    var error = [CChar](repeating: 0, count: 256)
    return withUnsafePointer(to: &parameter) { parameters in
      var definition = ImageToolProcessorDefinition(
        name: name, version: 1, summary: summary, parameters: parameters, parameter_count: 1,
        create: { arguments, count, _, _ in
          guard let arguments, count == 1, let value = arguments[0].value else { return nil }
          return UnsafeMutableRawPointer(strdup(value))
        },
        process: { state, input, output, context, error, errorSize in
          guard let state, let context, let lookup = context.pointee.memo_lookup,
            let store = context.pointee.memo_store, let run = context.pointee.run_pipeline
          else { return 1 }
          let host = context.pointee.host_state
          var calls = [0.0]
          _ = lookup(host, callsKey, &calls, 1)
          calls[0] += 1
          _ = store(host, callsKey, calls, 1)
          let spec = String(cString: state.assumingMemoryBound(to: CChar.self))
          reached.withLock { $0[spec, default: []].append(Int(calls[0])) }
          return run(
            host, state.assumingMemoryBound(to: CChar.self), input, output, error, errorSize)
        },
        destroy: { state in free(state) })
      return register(host.pointee.host, &definition, &error, error.count)
    }
  }

  static func registry() throws -> ProcessorRegistry {
    let registry = ProcessorRegistry.withBuiltIns()
    let names = try PluginLoader.register(
      path: "hostProbe.so", version: { 2 }, entry: register, into: registry)
    #expect(names == ["hostProbe"])
    return registry
  }
}

/// What the host offers a plugin of interface version 2 during `process`.
@Suite("Plugin interface 2: the host's services")
struct PluginServicesTests {
  @Test func theHostsPipelineGivesExactlyTheBuiltInsBytes() throws {
    let registry = try HostProbePlugin.registry()
    let photo = try SourceDecoder.decode(
      file: Photos.bundled("rocket.jpg"), covering: [.init(width: 80, height: 60)])
    for crop in ["centre", "attention", "entropy"] {
      let probe = try registry.pipeline(#"hostProbe(spec: "fill(crop: \#(crop)) | circle")"#)
        .process(photo, context: context(80, 60))
      let builtIn = try registry.pipeline("fill(crop: \(crop)) | circle").process(
        photo, context: context(80, 60))
      #expect((probe.width, probe.height, probe.bands) == (80, 60, 4))
      #expect(try probe.writePixels() == builtIn.writePixels(), "\(crop)")
    }
  }

  @Test func theMemoIsTheFillsAndKeepsWhatThePluginStores() throws {
    let registry = try HostProbePlugin.registry()
    let photo = try VipsImage(pixels: [10, 20, 30, 40, 50, 60], width: 2, height: 1, bands: 3)
    let pipeline = try registry.pipeline("hostProbe")
    let memo = ProcessingMemo()
    for size in [1, 2, 3] {
      var shared = context(size, size)
      shared.memo = memo
      _ = try pipeline.process(photo, context: shared)
    }
    #expect(memo.stored("calls") == [3])
  }

  @Test func outsideAFillTheMemoLivesForOneCall() throws {
    let registry = try HostProbePlugin.registry()
    let photo = try VipsImage(pixels: [10, 20, 30, 40, 50, 60], width: 2, height: 1, bands: 3)
    // A spec no other test uses, so that only this test's calls count under it.
    let spec = "fit"
    let pipeline = try registry.pipeline(#"hostProbe(spec: "\#(spec)")"#)
    _ = try pipeline.process(photo, context: context(1, 1))
    _ = try pipeline.process(photo, context: context(1, 1))
    // Each call starts from an empty memo: neither sees the other's count.
    #expect(HostProbePlugin.counts(spec: spec) == [1, 1])
  }

  @Test func aBadPipelineComesBackAsThePluginsError() throws {
    let registry = try HostProbePlugin.registry()
    let photo = try VipsImage(pixels: [10, 20, 30], width: 1, height: 1, bands: 3)
    do {
      _ = try registry.pipeline(#"hostProbe(spec: "fil")"#).process(photo, context: context(1, 1))
      Issue.record("an unknown processor ran")
    } catch {
      #expect("\(error)".contains("unknown processor 'fil'"), "\(error)")
    }
  }

  @Test func aVersion2PluginIsToldVersion2() throws {
    let registry = ProcessorRegistry()
    #expect(
      throws: PluginError.registrationFailed(
        path: "hostProbe.so", message: "its register function returned 1")
    ) {
      // The probe refuses any other version, so version 1 fails to register.
      try PluginLoader.register(
        path: "hostProbe.so", version: { 1 }, entry: HostProbePlugin.register, into: registry)
    }
  }
}

import Foundation
import ImageProcessing

/// The definitions this library has offered a host, each in a slot of its own: the
/// interface's `create` takes no state of its definition, so each slot has a `create`
/// function of its own (``CreateTrampolines``) that finds its definition here.
final class ExportedDefinitions: @unchecked Sendable {
  // Safety of @unchecked Sendable: `definitions` is read and written under `lock`.
  static let shared = ExportedDefinitions()

  private let lock = NSLock()
  private var definitions: [ProcessorDefinition] = []

  /// The slot of `definition`: the one its name has already (registering the plugin
  /// into a second registry reuses it, and a second definition of the name, which the
  /// host refuses, never takes the first one's place), else a new one; nil when all
  /// are taken.
  func slot(for definition: ProcessorDefinition) -> Int? {
    lock.lock()
    defer { lock.unlock() }
    if let known = definitions.firstIndex(where: { $0.name == definition.name }) {
      return known
    }
    guard definitions.count < CreateTrampolines.count else { return nil }
    definitions.append(definition)
    return definitions.count - 1
  }

  /// The definition in `slot`.
  func definition(in slot: Int) -> ProcessorDefinition? {
    lock.lock()
    defer { lock.unlock() }
    return definitions.indices.contains(slot) ? definitions[slot] : nil
  }
}

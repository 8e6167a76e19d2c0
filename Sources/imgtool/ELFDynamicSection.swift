/// What the dynamic section of an ELF file says about loading it: the libraries it
/// needs, in the order the dynamic loader takes them, and the folders it looks for them
/// in (for the engine: `needed` is `["libvips.so.42", "libswiftCore.so", ...]`). Nil for a
/// file without one, or whose section or names lie past its end.
struct ELFDynamicSection: Equatable {
  /// The `DT_NEEDED` entries (sonames), in the file's order.
  var needed: [String]
  /// `DT_RPATH`, searched before `LD_LIBRARY_PATH`; nil when absent.
  var rpath: String?
  /// `DT_RUNPATH`, searched after `LD_LIBRARY_PATH`; nil when absent.
  var runpath: String?

  // Dynamic section tags (elf.h).
  private static let tagNeeded: UInt64 = 1  // DT_NEEDED
  private static let tagStringTable: UInt64 = 5  // DT_STRTAB
  private static let tagStringTableSize: UInt64 = 10  // DT_STRSZ
  private static let tagRPath: UInt64 = 15  // DT_RPATH
  private static let tagRunPath: UInt64 = 29  // DT_RUNPATH
  /// More than any library's dynamic section holds.
  private static let maximumSectionBytes = 1 << 20
  /// More than any library name or search path has.
  private static let maximumNameBytes = 4_096

  init?(path: String) {
    guard let file = ELFFile(path: path) else { return nil }
    self.init(file)
  }

  init?(_ file: borrowing ELFFile) {
    guard let dynamic = file.segments.first(where: { $0.type == ELFFile.Segment.dynamic }),
      dynamic.fileSize <= UInt64(Self.maximumSectionBytes),
      let entries = file.bytes(at: dynamic.offset, count: Int(dynamic.fileSize))
    else { return nil }
    var tags: [(tag: UInt64, value: UInt64)] = []
    for base in stride(from: 0, to: entries.count - 15, by: 16) {
      let tag = ELFFile.integer(entries, at: base, size: 8)
      if tag == 0 { break }  // DT_NULL
      tags.append((tag, ELFFile.integer(entries, at: base + 8, size: 8)))
    }
    // DT_STRTAB is an address: the loadable segment that holds it gives its offset.
    guard let tableAddress = tags.first(where: { $0.tag == Self.tagStringTable })?.value,
      let tableSize = tags.first(where: { $0.tag == Self.tagStringTableSize })?.value,
      let segment = file.segments.first(where: {
        $0.type == ELFFile.Segment.load && $0.address <= tableAddress
          && tableSize <= $0.fileSize && tableAddress - $0.address <= $0.fileSize - tableSize
      })
    else { return nil }
    let stringsOffset = segment.offset &+ (tableAddress - segment.address)
    // Each name read alone: a Swift library's string table is most of a megabyte.
    func string(_ offset: UInt64) -> String? {
      guard offset < tableSize else { return nil }
      let count = Int(min(UInt64(Self.maximumNameBytes), tableSize - offset))
      guard let bytes = file.bytes(at: stringsOffset &+ offset, count: count),
        let end = bytes.firstIndex(of: 0)
      else { return nil }
      return String(decoding: bytes[..<end], as: UTF8.self)
    }
    needed = []
    for (tag, value) in tags {
      switch tag {
      case Self.tagNeeded:
        guard let name = string(value) else { return nil }
        needed.append(name)
      case Self.tagRPath: rpath = string(value)
      case Self.tagRunPath: runpath = string(value)
      default: break
      }
    }
  }
}

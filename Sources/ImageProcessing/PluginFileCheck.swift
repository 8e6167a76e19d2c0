import Foundation

/// What can be told of a plugin file before `dlopen` maps it: an ELF library cut short
/// (a copy or a link still being written) maps pages past the end of the file, and the
/// process dies of SIGBUS on the first touch instead of getting an error.
enum PluginFileCheck {
  /// Why the file at `path` cannot be a whole ELF library, or nil when it may be (it
  /// is one whose loaded segments all lie inside it, or it is not ELF at all, which
  /// `dlopen` reports itself).
  static func problem(path: String) -> String? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    guard let size = try? handle.seekToEnd(), (try? handle.seek(toOffset: 0)) != nil,
      let header = try? handle.read(upToCount: 64), header.count == 64,
      header.prefix(4) == Data([0x7F, 0x45, 0x4C, 0x46]),
      header[4] == 2, header[5] == 1  // 64-bit, little-endian: what this host loads
    else { return nil }
    let tableOffset = integer(header, at: 32, size: 8)
    let entrySize = integer(header, at: 54, size: 2)
    let count = integer(header, at: 56, size: 2)
    let (tableSize, overflow) = entrySize.multipliedReportingOverflow(by: count)
    guard !overflow, entrySize >= 56, tableOffset <= size, tableSize <= size - tableOffset else {
      return "the file is cut short (\(size) bytes, its program headers end past it); "
        + "was it copied or built completely?"
    }
    guard (try? handle.seek(toOffset: tableOffset)) != nil,
      let table = try? handle.read(upToCount: Int(tableSize)), table.count == Int(tableSize)
    else { return nil }
    for index in 0..<Int(count) {
      let entry = table.subdata(in: index * Int(entrySize)..<(index + 1) * Int(entrySize))
      guard integer(entry, at: 0, size: 4) == 1 else { continue }  // PT_LOAD
      let offset = integer(entry, at: 8, size: 8)
      let length = integer(entry, at: 32, size: 8)
      let (end, overflow) = offset.addingReportingOverflow(length)
      if overflow || end > size {
        return "the file is cut short (\(size) bytes, a segment it loads ends at byte "
          + "\(overflow ? UInt64.max : end)); was it copied or built completely?"
      }
    }
    return nil
  }

  /// The little-endian unsigned integer of `size` bytes at `offset` of `data`.
  private static func integer(_ data: Data, at offset: Int, size: Int) -> UInt64 {
    (0..<size).reduce(UInt64(0)) { value, byte in
      value | UInt64(data[data.startIndex + offset + byte]) << (8 * UInt64(byte))
    }
  }
}

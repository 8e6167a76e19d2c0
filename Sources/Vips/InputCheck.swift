import CVips
import Foundation

/// The checks made on untrusted input before libvips parses it: readable, not empty,
/// recognised by a loader that is allowed to run, and (a PNG) no chunk longer than the
/// file (``PNGChunkCheck``).
enum InputCheck {
  static func file(_ path: String) throws(VipsError) {
    Vips.forgetThreadErrors()
    // stat, not open: a FIFO is named without being opened (opening one blocks).
    var status = stat()
    guard stat(path, &status) == 0 else {
      throw .unreadable(source: path, message: FileBytes.reason(errno))
    }
    switch status.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: throw .unreadable(source: path, message: "it is a directory")
    default:
      let kind = FileBytes.kind(status.st_mode) ?? "not a file"
      throw .unreadable(source: path, message: "not a regular file (\(kind))")
    }
    guard access(path, R_OK) == 0 else {
      throw .unreadable(source: path, message: FileBytes.reason(errno))
    }
    let size = Int(status.st_size)
    guard size > 0 else { throw .empty(source: path) }
    if GzipCheck.isGzip(file: path) { throw GzipCheck.refusal(source: path) }
    try checkLoader(findLoader { vips_foreign_find_load(path) }, source: path) {
      FileDamage.contents(ofFile: path) ?? []
    }
    if let chunk = PNGChunkCheck.overlongChunk(file: path) {
      throw .truncated(source: path, message: chunk.reason)
    }
  }

  /// Checks `bytes`, a whole file unless `complete` says they are only its first bytes
  /// (a download's so far), whose chunks may go on past them.
  static func bytes(_ bytes: [UInt8], name: String, complete: Bool = true) throws(VipsError)
    -> ByteBuffer
  {
    Vips.forgetThreadErrors()
    guard !bytes.isEmpty else { throw .empty(source: name) }
    if GzipCheck.isGzip(bytes) { throw GzipCheck.refusal(source: name) }
    let buffer = ByteBuffer(copying: bytes)
    try checkLoader(
      findLoader { vips_foreign_find_load_buffer(buffer.start, buffer.count) }, source: name,
      complete: complete
    ) { bytes }
    if complete, let chunk = PNGChunkCheck.overlongChunk(in: bytes) {
      throw .truncated(source: name, message: chunk.reason)
    }
    return buffer
  }

  /// The loader `find` names; when none does, the trusted modules are loaded (once) and
  /// `find` asked again if modules came in since it was first asked: by this call, or by
  /// another thread's while `find` ran (a HEIF refused as "no loader" because a second
  /// photo's thread was loading the HEIF module, seen in a test of ten HEIFs at once).
  /// `loads` and `loadModules` are ``ModuleLoading``'s, given otherwise by tests.
  static func findLoader(
    _ find: () -> UnsafePointer<CChar>?, loads: () -> Int = { ModuleLoading.loads },
    loadModules: () -> Void = { ModuleLoading.loadTrustedModules() }
  ) -> UnsafePointer<CChar>? {
    let loadsBefore = loads()
    if let found = find() { return found }
    loadModules()
    guard loads() != loadsBefore else { return nil }
    _ = Vips.takeErrorMessage()
    return find()
  }

  /// Throws unless a loader was found and it is allowed to run. When none was, the
  /// file's `bytes` say whether it is a format only a blocked loader reads
  /// (``BlockedFormat``), or a TIFF or PNG too damaged for its loader to recognise
  /// (``FileDamage/unrecognised(_:)``, only when the bytes are `complete`).
  private static func checkLoader(
    _ className: UnsafePointer<CChar>?, source: String, complete: Bool = true,
    bytes: () -> [UInt8]
  ) throws(VipsError) {
    guard let className else {
      let message = Vips.takeErrorMessage()
      let contents = bytes()
      let suffix = String(source.split(separator: ".").last ?? "").lowercased()
      if let (format, loader) = BlockedFormat.identify(contents, suffix: suffix) {
        throw .blockedLoader(source: source, loader: loader, format: format)
      }
      if complete, let finding = FileDamage.unrecognised(contents) {
        throw .badInput(
          source: source, kind: finding.kind, words: finding.words, message: message)
      }
      throw .notAnImage(source: source)
    }
    let type = g_type_from_name(className)
    guard type != 0, let typeClass = g_type_class_ref(type) else { return }
    defer { g_type_class_unref(typeClass) }
    let operation = typeClass.assumingMemoryBound(to: VipsOperationClass.self).pointee
    if operation.flags.rawValue & VIPS_OPERATION_BLOCKED.rawValue != 0 {
      let nickname = operation.parent_class.nickname.map { String(cString: $0) }
      throw .blockedLoader(source: source, loader: nickname ?? String(cString: className))
    }
  }
}

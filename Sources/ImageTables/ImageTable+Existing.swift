import Foundation

extension ImageTable {
  /// Opens the table file at `tablePath` as it is, without knowing its format: the
  /// format is read back from the fingerprint in the file's header. For tools that
  /// look at a cache (`imgtool inspect`, `imgtool verify`); read-only by default.
  public convenience init(
    existingTableAt tablePath: String, options: Options = Options(readOnly: true)
  )
    throws(ImageTableError)
  {
    let url = URL(fileURLWithPath: tablePath)
    guard url.pathExtension == "table" else {
      throw .notATable(path: tablePath, reason: "the name does not end in .table")
    }
    let file = try MappedFile(
      path: tablePath, create: false, writable: false, permissions: 0o644, reservedLength: 0)
    let header: TableHeader
    switch TableHeader.read(from: file.base, length: file.length) {
    case .success(let read): header = read
    case .failure(let problem): throw .notATable(path: tablePath, reason: problem.reason)
    }
    guard let fingerprint = FormatFingerprint(text: header.fingerprint),
      let format = ImageFormat(fingerprint: fingerprint),
      format.name == url.deletingPathExtension().lastPathComponent
    else {
      throw .notATable(path: tablePath, reason: "its header does not describe a format")
    }
    try self.init(
      format: format, fingerprint: fingerprint, directory: url.deletingLastPathComponent(),
      options: options, hashEntityID: { Checksum.hash($0) })
  }

  /// The table files (`*.table`) in `directory`, sorted by name.
  public static func tableFiles(in directory: URL) throws(ImageTableError) -> [String] {
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    } catch {
      throw .io(path: directory.path, operation: "list", message: "no such folder, or not readable")
    }
    return names.filter { $0.hasSuffix(".table") }.sorted()
      .map { directory.appendingPathComponent($0).path }
  }
}

extension ImageFormat {
  /// The format a fingerprint describes, if its fields make one.
  init?(fingerprint: FormatFingerprint) {
    let fields = fingerprint.dictionary
    guard let name = fields["name"], let family = fields["family"],
      let width = fields["width"].flatMap(Int.init),
      let height = fields["height"].flatMap(Int.init),
      let scale = fields["scale"].flatMap(Int.init),
      let style = fields["style"].flatMap(PixelStyle.init),
      let maximumCount = fields["maximumCount"].flatMap(Int.init),
      let protection = fields["protectionMode"].flatMap(ProtectionMode.init),
      let devices = fields["devices"]
    else { return nil }
    let format = try? ImageFormat(
      name: name, family: family, width: width, height: height, scale: scale, style: style,
      maximumCount: maximumCount,
      devices: Set(devices.split(separator: ",").map { DeviceClass(rawValue: String($0)) }),
      protectionMode: protection, pipeline: fields["pipeline"] ?? "")
    guard let format else { return nil }
    self = format
  }
}

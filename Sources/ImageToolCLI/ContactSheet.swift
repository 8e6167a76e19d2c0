import ImageCaching
import ImageTables
import Vips

/// A picture of what tables hold: each format's entries in a grid under its name, on
/// a dark ground so that transparency shows. Every format lays out the same entities in
/// the same order (by entity id; a cell stays empty where a format lacks one), so one
/// photo sits in the same column of every format, and each entry is labelled with its
/// entity id.
enum ContactSheet {
  static let columns = 10
  static let gap = 6
  static let ground: [Double] = [32, 32, 36, 255]
  /// The longest label, in characters: a longer id keeps its end (the file name).
  static let longestLabel = 24

  /// Each format's cells, in the order drawn: the entity ids of every table, sorted,
  /// each present where the format holds it and nil where it does not.
  static func cells(_ tables: [(String, ImageTable)]) -> [(format: String, cells: [String?])] {
    let held = tables.map { ($0.0, Set($0.1.entries().map(\.entityID))) }
    let ids = held.reduce(into: Set<String>()) { $0.formUnion($1.1) }.sorted()
    return held.map { format, present in (format, ids.map { present.contains($0) ? $0 : nil }) }
  }

  /// What an entry's label reads: its entity id, or the id's end when it is long.
  static func label(_ id: String) -> String {
    id.count <= longestLabel ? id : "…" + id.suffix(longestLabel - 1)
  }

  /// The sheet of `tables` (format name and table), or nil when all are empty.
  static func make(_ tables: [(String, ImageTable)]) throws -> VipsImage? {
    var blocks: [VipsImage] = []
    let byName = Dictionary(tables, uniquingKeysWith: { first, _ in first })
    for (name, ids) in cells(tables) {
      guard let table = byName[name] else { continue }
      let latest = Dictionary(
        table.entries().map { ($0.entityID, $0.sourceVersion) },
        uniquingKeysWith: { _, last in last })
      var images: [VipsImage] = []
      var count = 0
      for id in ids {
        guard let id, let version = latest[id],
          let bitmap = table.bitmap(entityID: id, sourceVersion: version)
        else {
          images.append(try VipsImage(pixels: [0, 0, 0, 0], width: 1, height: 1, bands: 4))
          continue
        }
        let picture = try bitmap.image().toSRGB().withAlpha()
        let caption = try TextImage.white(label(id), font: "sans 8")
        images.append(try picture.joined(below: caption, spacing: 2, background: [0, 0, 0, 0]))
        count += 1
      }
      guard count > 0 else { continue }
      let grid = try VipsImage.grid(
        images, across: min(columns, images.count), spacing: gap, background: [0, 0, 0, 0])
      let white = try TextImage.white("\(name): \(count) entries")
      blocks.append(try white.joined(below: grid, spacing: gap, background: [0, 0, 0, 0]))
    }
    guard var sheet = blocks.first else { return nil }
    for block in blocks.dropFirst() {
      sheet = try sheet.joined(below: block, spacing: gap * 3, background: [0, 0, 0, 0])
    }
    let framed = try sheet.embedded(
      x: gap * 2, y: gap * 2, width: sheet.width + gap * 4, height: sheet.height + gap * 4,
      background: [0, 0, 0, 0])
    return try framed.flattened(background: Array(ground.prefix(3)))
  }
}

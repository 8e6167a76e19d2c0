import ImageCaching
import ImageTables
import Vips

/// A picture of what tables hold: each format's entries in a grid under its name, on
/// a dark ground so that transparency shows.
enum ContactSheet {
  static let columns = 10
  static let gap = 6
  static let ground: [Double] = [32, 32, 36, 255]

  /// The sheet of `tables` (format name and table), or nil when all are empty.
  static func make(_ tables: [(String, ImageTable)]) throws -> VipsImage? {
    var blocks: [VipsImage] = []
    for (name, table) in tables {
      let images = try table.entries().compactMap { entry in
        try table.bitmap(entityID: entry.entityID, sourceVersion: entry.sourceVersion)?.image()
          .toSRGB().withAlpha()
      }
      guard !images.isEmpty else { continue }
      let grid = try VipsImage.grid(
        images, across: min(columns, images.count), spacing: gap, background: [0, 0, 0, 0])
      let white = try TextImage.white("\(name): \(images.count) entries")
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

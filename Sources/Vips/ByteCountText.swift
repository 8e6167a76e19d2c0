/// Byte counts for people: `512 B`, `16.0 KiB`, `1.5 MiB`.
package enum ByteCountText {
  package static func describe(_ bytes: Int) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1024, unit < units.count - 1 {
      value /= 1024
      unit += 1
    }
    return unit == 0 ? "\(bytes) B" : "\((value * 10).rounded() / 10) \(units[unit])"
  }
}

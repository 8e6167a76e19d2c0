/// How soon a fill runs, among those waiting for one of the cache's workers (as Nuke's
/// `ImageRequest.Priority`): the photos on screen first, prefetches after.
///
/// A request that joins a queued fill with a higher priority raises the fill's; a fill
/// already running is not affected. Fills of one priority run in the order asked.
///
/// <!-- snippet context: import ImageTables -->
/// <!-- snippet context: func draw(_ bitmap: Bitmap) {} -->
/// <!-- snippet context: let small = try ImageFormat(name: "avatar.small", family: "avatar", width: 32, height: 32) -->
/// <!-- snippet context: let setup = CacheConfiguration(directory: URL(fileURLWithPath: "c"), formats: [small]) -->
/// <!-- snippet context: let cache = try ImageCache(configuration: setup) -->
/// <!-- snippet context: let ada = Entity(id: "ada", sourceVersion: "1", source: .file("ada.jpg")) -->
/// <!-- snippet context: let friends = [ada] -->
/// ```swift
/// let visible = try await cache.image(for: ada, format: "avatar.small", priority: .high)
/// draw(visible)
/// cache.prefetch(friends, family: "avatar")  // .low, after what is on screen
/// ```
public enum FillPriority: Int, Sendable, Comparable, CaseIterable {
  case veryLow, low, normal, high, veryHigh

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Who may read a format's table file, after iOS's data protection classes.
public enum ProtectionMode: String, Sendable, CaseIterable, Codable {
  /// Files are 0644 and always readable.
  case none
  /// Files are 0600, and the table refuses reads and writes while the cache is locked.
  case complete
  /// Files are 0600, and the table refuses reads and writes until the cache is first unlocked.
  case completeUntilFirstUserAuthentication

  /// The permission bits of the table's files.
  public var filePermissions: UInt16 { self == .none ? 0o644 : 0o600 }
}

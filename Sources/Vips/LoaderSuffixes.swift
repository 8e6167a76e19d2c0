import CVips
import CVipsShim

extension Vips {
  /// The file name extensions (lowercase, without the dot) that the loaders of the running
  /// libvips declare, leaving out the loaders blocked for untrusted input (see
  /// ``start()``): what a folder of photos may hold, HEIC and AVIF included when libvips
  /// was built with libheif.
  ///
  /// ```swift
  /// let suffixes = try Vips.trustedLoaderSuffixes()  // ["avif", "gif", "heic", "jpg", ...]
  /// ```
  public static func trustedLoaderSuffixes() throws(VipsError) -> Set<String> {
    try start()
    return loaderSuffixes
  }

  /// Whether a trusted loader of the running libvips declares `suffix` (lowercase, without
  /// the dot), as ``trustedLoaderSuffixes()`` would say, but asking the loaders built into
  /// libvips first: only a suffix a trusted module can declare (HEIF and AVIF, JPEG XL)
  /// loads those modules, whose libraries cost start-up time, to ask them too. A README
  /// or `.DS_Store` in a folder of photos loads nothing.
  ///
  /// ```swift
  /// try Vips.isTrustedLoaderSuffix("jpg")  // true, without loading any module
  /// ```
  public static func isTrustedLoaderSuffix(_ suffix: String) throws(VipsError) -> Bool {
    try start()
    if builtInLoaderSuffixes.contains(suffix) { return true }
    return moduleSuffixes.contains(suffix) && loaderSuffixes.contains(suffix)
  }

  /// What libvips 8.14's trusted modules can declare when loaded: vips-heif (heifload:
  /// .heic .heif .avif) and vips-jxl (jxlload: .jxl).
  private static let moduleSuffixes: Set<String> = ["heic", "heif", "avif", "jxl"]

  /// What the loaders registered before any module is loaded declare.
  private static let builtInLoaderSuffixes: Set<String> = declaredSuffixes()

  private static let loaderSuffixes: Set<String> = {
    _ = ModuleLoading.loadTrustedModules()  // HEIF and JPEG XL declare theirs when loaded
    return declaredSuffixes()
  }()

  /// The suffixes the trusted loaders registered now declare, less those that a blocked
  /// loader declares too: `.mat` is libvips's text matrix (matrixload, trusted) and a
  /// MATLAB file (matload, blocked), and a folder's `.mat` files are MATLAB's, which
  /// would all be refused.
  private static func declaredSuffixes() -> Set<String> {
    final class Found {
      var suffixes: Set<String> = []
      var blocked: Set<String> = []
    }
    let found = Found()
    let visit: VipsClassMapFn = { objectClass, context in
      guard let objectClass, let context else { return nil }
      let found = Unmanaged<Found>.fromOpaque(context).takeUnretainedValue()
      let foreign = UnsafeMutableRawPointer(objectClass).assumingMemoryBound(
        to: VipsForeignClass.self)
      let excluded =
        VIPS_OPERATION_UNTRUSTED.rawValue | VIPS_OPERATION_BLOCKED.rawValue
        | VIPS_OPERATION_DEPRECATED.rawValue
      guard var suffix = foreign.pointee.suffs else { return nil }
      let trusted = foreign.pointee.parent_class.flags.rawValue & excluded == 0
      while let text = suffix.pointee {
        let name = String(String(cString: text).lowercased().drop { $0 == "." })
        if trusted { found.suffixes.insert(name) } else { found.blocked.insert(name) }
        suffix += 1
      }
      return nil
    }
    withExtendedLifetime(found) {
      _ = vips_class_map_all(
        g_type_from_name("VipsForeignLoad"), visit, Unmanaged.passUnretained(found).toOpaque())
    }
    return found.suffixes.subtracting(found.blocked)
  }
}

/// ImageTool's version, in a module of its own so that the `imgtool` launcher (which
/// links neither libvips nor the engine) and the engine print the same one.
///
/// ```swift
/// print("imgtool \(ImageToolVersion.number)")  // imgtool 0.1.0
/// ```
public enum ImageToolVersion {
  /// The version number, for example `0.1.0`.
  public static let number = "0.1.0"
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A path's bytes as text, and back: a file system gives names as bytes, which need not
/// be UTF-8, and a Swift `String` holds only UTF-8.
///
/// A path that is UTF-8 is its own text. One that is not is escaped losslessly: each
/// byte that is not part of a UTF-8 character as `\xHH`, each backslash as `\\`.
/// ``bytes(_:)`` reads such a text back. The escaped text is what messages show and what
/// an entity id of such a name holds.
///
/// ```swift
/// let text = PathText.text([0x63, 0x61, 0x66, 0xff, 0x2e, 0x6a, 0x70, 0x67])
/// // text == "caf\\xff.jpg"; PathText.bytes(text) gives the bytes back
/// ```
public enum PathText {
  /// The text of `bytes`: themselves when they are UTF-8, else escaped.
  public static func text(_ bytes: [UInt8]) -> String {
    if let text = String(validating: bytes, as: UTF8.self) { return text }
    var text = ""
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var position = 0
    while true {
      switch parser.parseScalar(from: &iterator) {
      case .valid(let encoded):
        position += encoded.count
        let scalar = Unicode.UTF8.decode(encoded)
        if scalar == "\\" { text += "\\\\" } else { text.unicodeScalars.append(scalar) }
      case .error(let length):
        for byte in bytes[position..<position + length] {
          let hex = String(byte, radix: 16)
          text += "\\x" + (hex.count == 1 ? "0" + hex : hex)
        }
        position += length
      case .emptyInput:
        return text
      }
    }
  }

  /// The bytes an escaped text stands for; nil when `text` is no escape of bytes that
  /// are not UTF-8 (it is then its own bytes).
  public static func bytes(_ text: String) -> [UInt8]? {
    let utf8 = Array(text.utf8)
    guard utf8.contains(UInt8(ascii: "\\")) else { return nil }
    var bytes: [UInt8] = []
    var index = 0
    while index < utf8.count {
      guard utf8[index] == UInt8(ascii: "\\") else {
        bytes.append(utf8[index])
        index += 1
        continue
      }
      if index + 1 < utf8.count, utf8[index + 1] == UInt8(ascii: "\\") {
        bytes.append(UInt8(ascii: "\\"))
        index += 2
      } else if index + 3 < utf8.count, utf8[index + 1] == UInt8(ascii: "x"),
        let byte = UInt8(
          String(decoding: utf8[(index + 2)...(index + 3)], as: UTF8.self), radix: 16)
      {
        bytes.append(byte)
        index += 4
      } else {
        return nil
      }
    }
    return String(validating: bytes, as: UTF8.self) == nil ? bytes : nil
  }

  /// The bytes of the path `text` names on disk: `text`'s own when something is there
  /// (or nothing is there either way), else those it escapes when they name something.
  public static func onDisk(_ text: String) -> [UInt8]? {
    var status = stat()
    guard stat(text, &status) != 0, let bytes = bytes(text) else { return nil }
    let found = (bytes + [0]).withUnsafeBufferPointer {
      $0.withMemoryRebound(to: CChar.self) { lstat($0.baseAddress!, &status) == 0 }
    }
    return found ? bytes : nil
  }
}

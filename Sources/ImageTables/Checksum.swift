/// A fast 64-bit hash of bytes, for entry checksums, key hashing and source versions.
///
/// Four independent lanes of multiply-rotate over 8-byte words (in the manner of
/// xxHash64), then a final avalanche. Not cryptographic: it detects torn writes,
/// flipped bits and truncation, not deliberate forgery.
public enum Checksum {
  private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
  private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
  private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
  private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63

  public static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
    guard let base = bytes.baseAddress else { return avalanche(seed ^ prime3) }
    let count = bytes.count
    var offset = 0
    var lanes = (seed &+ prime1 &+ prime2, seed &+ prime2, seed, seed &- prime1)
    while offset + 32 <= count {
      lanes.0 = round(lanes.0, base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      lanes.1 = round(lanes.1, base.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
      lanes.2 = round(lanes.2, base.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
      lanes.3 = round(lanes.3, base.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
      offset += 32
    }
    var hash =
      rotate(lanes.0, 1) &+ rotate(lanes.1, 7) &+ rotate(lanes.2, 12) &+ rotate(lanes.3, 18)
    hash = hash &+ UInt64(count)
    while offset + 8 <= count {
      hash ^= round(0, base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      hash = rotate(hash, 27) &* prime1 &+ prime4
      offset += 8
    }
    while offset < count {
      hash ^= UInt64(base.load(fromByteOffset: offset, as: UInt8.self)) &* prime3
      hash = rotate(hash, 11) &* prime1
      offset += 1
    }
    return avalanche(hash)
  }

  public static func hash(_ string: String, seed: UInt64 = 0) -> UInt64 {
    var string = string
    return string.withUTF8 { hash(UnsafeRawBufferPointer($0), seed: seed) }
  }

  /// The hash of `bytes` as 16 lowercase hex digits.
  public static func hex(_ bytes: [UInt8]) -> String {
    let value = bytes.withUnsafeBytes { hash($0) }
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  @inline(__always)
  private static func round(_ accumulator: UInt64, _ input: UInt64) -> UInt64 {
    rotate(accumulator &+ input &* prime2, 31) &* prime1
  }

  @inline(__always)
  private static func rotate(_ value: UInt64, _ bits: UInt64) -> UInt64 {
    (value << bits) | (value >> (64 - bits))
  }

  @inline(__always)
  private static func avalanche(_ value: UInt64) -> UInt64 {
    var hash = value
    hash ^= hash >> 33
    hash = hash &* prime2
    hash ^= hash >> 29
    hash = hash &* prime3
    hash ^= hash >> 32
    return hash
  }
}

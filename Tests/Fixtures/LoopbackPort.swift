import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Ports on 127.0.0.1 for the test web servers.
enum LoopbackPort {
  /// A port nobody listens on right now: the kernel's pick for a socket bound to port 0,
  /// closed again. Someone else may take it before the caller binds it; callers retry.
  static func free() -> Int? {
    guard let socket = boundSocket() else { return nil }
    defer { close(socket.descriptor) }
    return socket.port
  }

  /// A socket bound to a free loopback port, and the port; nil when none could be had.
  static func boundSocket() -> (descriptor: Int32, port: Int)? {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    var address = loopback(port: 0)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(descriptor, $0, &length)
      }
    }
    guard bound == 0, named == 0 else {
      close(descriptor)
      return nil
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
  }

  /// Whether something accepts a TCP connection on 127.0.0.1:`port` now.
  static func accepts(_ port: Int) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = loopback(port: port)
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }
}

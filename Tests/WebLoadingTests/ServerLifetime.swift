import Foundation
import TestFixtures

/// Runs `body` with a misbehaving server, started and stopped on threads of their own:
/// both block (a start waits for the port, a stop for the process), and on Swift's two
/// cooperative threads they held up every other test of a parallel run.
func withMisbehavingServer<T: Sendable>(
  _ body: (MisbehavingServer) async throws -> T
) async throws -> T {
  let server = try await onOwnThread { try MisbehavingServer.start() }
  do {
    let result = try await body(server)
    try await onOwnThread { server.stop() }
    return result
  } catch {
    _ = try? await onOwnThread { server.stop() }
    throw error
  }
}

/// Runs `body` with nginx serving `root`, started and stopped on threads of their own.
func withNginx<T: Sendable>(
  serving root: URL, _ body: (NginxServer) async throws -> T
) async throws -> T {
  let server = try await onOwnThread { try NginxServer.start(serving: root) }
  do {
    let result = try await body(server)
    try await onOwnThread { server.stop() }
    return result
  } catch {
    _ = try? await onOwnThread { server.stop() }
    throw error
  }
}

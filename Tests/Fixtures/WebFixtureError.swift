/// Why a test web server (``NginxServer``, ``MisbehavingServer``) could not be had.
public enum WebFixtureError: Error, CustomStringConvertible {
  case couldNotStart(program: String, reason: String)
  case notListening(program: String, port: Int, seconds: Double, errors: String)

  public var description: String {
    switch self {
    case .couldNotStart(let program, let reason):
      "could not start \(program): \(reason)"
    case .notListening(let program, let port, let seconds, let errors):
      "\(program) did not accept connections on 127.0.0.1:\(port) within \(seconds) s"
        + (errors.isEmpty ? "" : "; it said: \(errors)")
    }
  }
}

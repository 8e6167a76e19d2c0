import CCurl
import CCurlShim

/// One running attempt: its easy handle, set up for one GET, and what its callbacks
/// gathered (status, headers, body) and decided (cut, refused, rejected).
///
/// Lives on the engine's thread only; libcurl calls its callbacks there, from
/// `curl_multi_perform`.
final class ActiveTransfer {
  let job: TransferJob
  let easy: UnsafeMutableRawPointer
  private let errorBuffer: UnsafeMutablePointer<CChar>
  private var headerList: UnsafeMutablePointer<curl_slist>?
  private let started = ContinuousClock.now
  /// When the request was seen sent (the idle clock starts there), or nil before.
  private var requestSentAt: ContinuousClock.Instant?
  private var lastByteAt: ContinuousClock.Instant

  private var status = 0
  private var headers: [String: String] = [:]
  private var headersComplete = false
  private var isRedirect = false
  private var expected: Int64?
  private var body: [UInt8] = []
  private var inspecting: Bool
  /// What a callback decided; it wins over libcurl's own result code.
  private var failure: TransferFailure?

  init(job: TransferJob) throws(TransferFailure) {
    guard let easy = curl_easy_init() else { throw .other("libcurl: curl_easy_init failed") }
    self.job = job
    self.easy = easy
    lastByteAt = started
    inspecting = job.request.inspect != nil
    errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
    errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    for header in job.request.headers {
      headerList = curl_slist_append(headerList, header)
    }
    let limits = job.request.limits
    let context = Unmanaged.passUnretained(self).toOpaque()
    var status = CURLE_OK
    func set(_ code: CURLcode) { if status == CURLE_OK { status = code } }
    set(ccurl_easy_setopt_string(easy, CURLOPT_URL, job.request.url))
    set(ccurl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1))
    set(ccurl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
    // Redirects are followed by HTTPClient, one attempt each, so that a loop is named
    // with its chain and the redirect limit is ours.
    set(ccurl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0))
    // No signals from libcurl's resolver in a multi-threaded process.
    set(ccurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
    set(ccurl_easy_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1))
    // No child process may inherit a connection and hold it open after it is closed here.
    set(ccurl_easy_open_sockets_close_on_exec(easy))
    set(
      ccurl_easy_setopt_long(
        easy, CURLOPT_CONNECTTIMEOUT_MS, limits.connectTimeout.curlMilliseconds))
    set(ccurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, limits.requestTimeout.curlMilliseconds))
    // No CURLOPT_MAXFILESIZE_LARGE: libcurl 7.88 would refuse a Content-Length over it
    // while parsing that header, before the length is known to getinfo or to us, and it
    // does not cut a body without one. `headersEnded` refuses a declared length over the
    // limit before the body; `receiveBody` cuts a body the moment it passes it.
    set(ccurl_easy_setopt_string(easy, CURLOPT_USERAGENT, "ImageTool-WebLoading/1"))
    set(ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer))
    set(ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList))
    set(ccurl_easy_setopt_data_function(easy, CURLOPT_HEADERFUNCTION, headerCallback))
    set(ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context))
    set(ccurl_easy_setopt_data_function(easy, CURLOPT_WRITEFUNCTION, bodyCallback))
    set(ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context))
    guard status == CURLE_OK else {
      let message = String(cString: curl_easy_strerror(status))
      release()
      throw .other("libcurl: \(message)")
    }
  }

  /// Frees the handle; call once, after it left the multi handle.
  func release() {
    curl_easy_cleanup(easy)
    curl_slist_free_all(headerList)
    headerList = nil
    errorBuffer.deallocate()
  }

  /// How many new connections this attempt opened (0 when it reused one).
  var connectionsOpened: Int {
    var count = 0
    ccurl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &count)
    return count
  }

  /// Whether no byte arrived for `limit` since the request was sent (or since the last
  /// byte). Before the request is sent the connect timeout governs.
  func isIdle(at now: ContinuousClock.Instant, limit: Duration) -> Bool {
    if requestSentAt == nil {
      var sent = 0
      ccurl_easy_getinfo_long(easy, CURLINFO_REQUEST_SIZE, &sent)
      guard sent > 0 else { return false }
      requestSentAt = now
    }
    guard let requestSentAt else { return false }
    return now - max(lastByteAt, requestSentAt) > limit
  }

  /// One header line (status lines included), as libcurl hands them; false stops the
  /// transfer.
  fileprivate func receiveHeader(_ bytes: UnsafeRawBufferPointer) -> Bool {
    lastByteAt = .now
    var end = bytes.count
    while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
    let line = String(decoding: bytes[..<end], as: UTF8.self)
    if line.hasPrefix("HTTP/") {
      // A new response (after a 100 Continue): its own status and headers.
      let parts = line.split(separator: " ", maxSplits: 2)
      status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
      headers = [:]
      headersComplete = false
      return true
    }
    if line.isEmpty { return headersEnded() }
    guard let colon = line.firstIndex(of: ":") else { return true }
    let name = line[..<colon].trimmingWhitespace().lowercased()
    let value = String(line[line.index(after: colon)...].trimmingWhitespace())
    if let earlier = headers[name] {
      headers[name] = earlier + ", " + value
    } else {
      headers[name] = value
    }
    return true
  }

  private func headersEnded() -> Bool {
    if (100...199).contains(status) { return true }
    headersComplete = true
    if (300...399).contains(status), status != 304, headers["location"] != nil {
      isRedirect = true
      return true
    }
    if status >= 400 {
      // An error page is not read: the status is the answer.
      failure = .status(status)
      return false
    }
    if let length = headers["content-length"].flatMap({ Int64($0) }) {
      expected = length
      if length > job.request.limits.maximumBytes {
        failure = .tooLarge(declared: length)
        return false
      }
      body.reserveCapacity(Int(min(length, 64 << 20)))
    }
    return true
  }

  /// One chunk of the body; false stops the transfer.
  fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
    lastByteAt = .now
    if isRedirect { return true }  // a redirect's own body is skipped
    let limit = job.request.limits.maximumBytes
    if Int64(body.count) + Int64(bytes.count) > limit {
      failure = .tooLarge(declared: nil)
      return false
    }
    body.append(contentsOf: bytes)
    job.request.progress?(
      TransferProgress(bytesReceived: Int64(body.count), bytesExpected: expected))
    if inspecting, let inspect = job.request.inspect {
      switch inspect(body) {
      case .needMore: break
      case .accept: inspecting = false
      case .reject(let reason):
        failure = .rejected(reason)
        return false
      }
    }
    return true
  }

  /// The attempt's outcome, given libcurl's result code.
  func outcome(of result: CURLcode) -> TransferOutcome {
    if let failure { return .failed(failure) }
    switch result {
    case CURLE_OK:
      // A 3xx without a Location (300, 305) is neither a response nor a redirect.
      guard (200...299).contains(status) || status == 304 || isRedirect else {
        return .failed(.status(status))
      }
      if let expected, Int64(body.count) < expected, !isRedirect, status != 304 {
        return .failed(.cutShort(received: Int64(body.count), expected: expected))
      }
      var target: UnsafePointer<CChar>?
      ccurl_easy_getinfo_string(easy, CURLINFO_REDIRECT_URL, &target)
      var effective: UnsafePointer<CChar>?
      ccurl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &effective)
      return .completed(
        TransferResult(
          status: status, headers: headers, body: isRedirect ? [] : body,
          redirectTarget: isRedirect ? target.map { String(cString: $0) } : nil,
          effectiveURL: effective.map { String(cString: $0) } ?? job.request.url))
    case CURLE_OPERATION_TIMEDOUT:
      if ContinuousClock.now - started >= job.request.limits.requestTimeout {
        return .failed(.timeout(.request))
      }
      return .failed(.timeout(headersComplete || requestSentAt != nil ? .request : .connect))
    case CURLE_PARTIAL_FILE:
      return .failed(
        .cutShort(received: Int64(body.count), expected: expected ?? Int64(body.count)))
    case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT,
      CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_SSL_CONNECT_ERROR:
      if headersComplete, let expected, Int64(body.count) < expected {
        return .failed(.cutShort(received: Int64(body.count), expected: expected))
      }
      return .failed(.connection(message(for: result)))
    default:
      return .failed(.other(message(for: result)))
    }
  }

  private func message(for result: CURLcode) -> String {
    if errorBuffer.pointee != 0 { return String(cString: errorBuffer) }
    return String(cString: curl_easy_strerror(result))
  }
}

private func headerCallback(
  _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
  _ context: UnsafeMutableRawPointer?
) -> Int {
  guard let context else { return 0 }
  let transfer = Unmanaged<ActiveTransfer>.fromOpaque(context).takeUnretainedValue()
  let bytes = UnsafeRawBufferPointer(start: buffer, count: size * count)
  return transfer.receiveHeader(bytes) ? size * count : 0
}

private func bodyCallback(
  _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
  _ context: UnsafeMutableRawPointer?
) -> Int {
  guard let context else { return 0 }
  let transfer = Unmanaged<ActiveTransfer>.fromOpaque(context).takeUnretainedValue()
  let bytes = UnsafeRawBufferPointer(start: buffer, count: size * count)
  return transfer.receiveBody(bytes) ? size * count : 0
}

extension StringProtocol {
  fileprivate func trimmingWhitespace() -> Substring {
    let trimmed = drop { $0 == " " || $0 == "\t" }
    var end = trimmed.endIndex
    while end > trimmed.startIndex, [" ", "\t"].contains(trimmed[trimmed.index(before: end)]) {
      end = trimmed.index(before: end)
    }
    return Substring(trimmed[..<end])
  }
}

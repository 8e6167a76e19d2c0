#!/usr/bin/env python3
"""A web server that misbehaves on purpose, for the tests of ImageTool's HTTP source.

Python 3 standard library only. Listens on 127.0.0.1 (loopback only) on the port given
with --port (0, the default, picks a free one), prints the port it listens on as one line
on standard output, then serves until standard input closes: the test process holds the
other end of that pipe, so the server ends with it, even when the test process crashes or
is killed.  Swift starts it through TestFixtures' MisbehavingServer.

Every body is a real photo from Tests/Fixtures/photos (rocket.jpg unless `?photo=NAME`
names another kept photo). Paths (the query is optional everywhere):

  /stall.jpg[?after=N&seconds=S]   200 with the Content-Length of the photo, the first N
                                   bytes of the body (default 0), then silence for S
                                   seconds (default 600), then the connection closes.
  /short.jpg                       200 with the Content-Length of the whole photo, half
                                   of the body, then the connection closes.
  /huge.jpg                        200 with Content-Length: 8 GiB (8589934592), then the
                                   photo and filler bytes until the client goes away.
  /nolength.jpg                    200 without Content-Length (the body ends when the
                                   connection closes): the photo, then filler bytes up
                                   to 256 MiB, more than any limit of the tests: a
                                   client that does not cut it fails its test, rather
                                   than fill the machine's memory.
  /page.jpg                        200 text/html: an HTML page that says 404 Not Found.
  /loop, /loop2                    302 to each other: a redirect loop.
  /chain/N                         302 to /chain/N-1 ... /chain/0 serves the photo: N
                                   redirects, then the photo.
  /flaky.jpg[?fail=K&key=X]        500 for the first K requests (default 2) of this exact
                                   target (path and query: give each test its own key),
                                   then the photo.
  /missing.jpg                     404 with a small HTML page.
  /png-as-jpeg.jpg                 a PNG (coffee.png unless ?photo=) with Content-Type
                                   image/jpeg.
  /slow.jpg[?seconds=S&chunks=N]   the photo with its Content-Length, dripped in N chunks
                                   (default 20) spread over S seconds (default 2).
  /photos/NAME                     the kept photo NAME, served normally (Content-Type by
                                   extension, Content-Length).
  /_requests?target=T              (control) how many requests reached the target T (a
                                   path with its query, exactly as requested), as a
                                   decimal number; not counted itself.

Every other path is a 404.
"""

import argparse
import os
import signal
import socket
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PHOTOS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "photos")
NO_LENGTH_BYTES = 256 << 20
EIGHT_GIB = 8 * 1024 * 1024 * 1024
FILLER = bytes(range(256)) * 256  # 64 KiB

counts_lock = threading.Lock()
counts = {}


def photo_bytes(name):
    if "/" in name or name.startswith("."):
        raise FileNotFoundError(name)
    with open(os.path.join(PHOTOS, name), "rb") as f:
        return f.read()


def content_type(name):
    if name.endswith(".png"):
        return "image/png"
    if name.endswith(".jpg") or name.endswith(".jpeg"):
        return "image/jpeg"
    return "application/octet-stream"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "MisbehavingServer/1"

    def log_message(self, format, *args):  # quiet: stdout carries the port only
        pass

    def do_GET(self):
        target = self.path
        parsed = urllib.parse.urlsplit(target)
        query = urllib.parse.parse_qs(parsed.query)
        path = parsed.path

        def arg(name, default):
            values = query.get(name)
            return values[0] if values else default

        if path == "/_requests":
            with counts_lock:
                count = counts.get(arg("target", ""), 0)
            return self.send_body(200, str(count).encode(), "text/plain")

        with counts_lock:
            counts[target] = counts.get(target, 0) + 1
            count = counts[target]

        try:
            photo = photo_bytes(arg("photo", "rocket.jpg"))
        except OSError:
            return self.send_body(404, b"no such photo\n", "text/plain")

        try:
            if path == "/stall.jpg":
                after = int(arg("after", "0"))
                self.send_head(200, "image/jpeg", len(photo))
                self.wfile.write(photo[:after])
                self.wfile.flush()
                self.sleep(float(arg("seconds", "600")))
                self.close_connection = True
            elif path == "/short.jpg":
                self.send_head(200, "image/jpeg", len(photo))
                self.wfile.write(photo[: len(photo) // 2])
                self.wfile.flush()
                self.close_connection = True
            elif path == "/huge.jpg":
                self.send_head(200, "image/jpeg", EIGHT_GIB)
                self.endless(photo, limit=EIGHT_GIB)
            elif path == "/nolength.jpg":
                self.send_head(200, "image/jpeg", None)
                self.endless(photo, limit=NO_LENGTH_BYTES)
            elif path == "/page.jpg":
                page = (
                    b"<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>"
                    b"<body><h1>Not Found</h1><p>The photo you asked for is not here."
                    b"</p></body></html>\n"
                )
                self.send_body(200, page, "text/html; charset=utf-8")
            elif path == "/loop":
                self.redirect("/loop2")
            elif path == "/loop2":
                self.redirect("/loop")
            elif path.startswith("/chain/"):
                n = int(path[len("/chain/") :])
                if n > 0:
                    rest = "?" + parsed.query if parsed.query else ""
                    self.redirect("/chain/%d%s" % (n - 1, rest))
                else:
                    self.send_body(200, photo, "image/jpeg")
            elif path == "/flaky.jpg":
                if count <= int(arg("fail", "2")):
                    self.send_body(500, b"<html><body>500 Internal Server Error</body></html>\n", "text/html")
                else:
                    self.send_body(200, photo, "image/jpeg")
            elif path == "/missing.jpg":
                self.send_body(404, b"<html><body><h1>404 Not Found</h1></body></html>\n", "text/html")
            elif path == "/png-as-jpeg.jpg":
                self.send_body(200, photo_bytes(arg("photo", "coffee.png")), "image/jpeg")
            elif path == "/slow.jpg":
                seconds = float(arg("seconds", "2"))
                chunks = max(1, int(arg("chunks", "20")))
                self.send_head(200, "image/jpeg", len(photo))
                size = (len(photo) + chunks - 1) // chunks
                for i in range(chunks):
                    self.wfile.write(photo[i * size : (i + 1) * size])
                    self.wfile.flush()
                    if i + 1 < chunks:
                        time.sleep(seconds / (chunks - 1) if chunks > 1 else 0)
            elif path.startswith("/photos/"):
                name = urllib.parse.unquote(path[len("/photos/") :])
                try:
                    body = photo_bytes(name)
                except OSError:
                    return self.send_body(404, b"no such photo\n", "text/plain")
                self.send_body(200, body, content_type(name))
            else:
                self.send_body(404, b"no such path\n", "text/plain")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def send_head(self, status, ctype, length):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        if length is None:
            self.send_header("Connection", "close")
            self.close_connection = True
        else:
            self.send_header("Content-Length", str(length))
        self.end_headers()

    def send_body(self, status, body, ctype):
        self.send_head(status, ctype, len(body))
        self.wfile.write(body)

    def redirect(self, location):
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def endless(self, first, limit):
        self.wfile.write(first)
        sent = len(first)
        while limit is None or sent < limit:
            chunk = FILLER if limit is None else FILLER[: min(len(FILLER), limit - sent)]
            self.wfile.write(chunk)
            sent += len(chunk)
        self.close_connection = True

    def sleep(self, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            time.sleep(min(0.1, max(0.0, deadline - time.monotonic())))


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def exit_when_stdin_closes():
    try:
        while sys.stdin.buffer.read(4096):
            pass
    finally:
        os._exit(0)


def main():
    # A child inherits the signal mask of the thread that started it; a Swift test's
    # threads block SIGTERM, which stop() sends: take every signal again.
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--keep-stdin", action="store_true", help="do not end when standard input closes (by hand)"
    )
    options = parser.parse_args()
    server = Server(("127.0.0.1", options.port), Handler)
    server.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if not options.keep_stdin:
        threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()

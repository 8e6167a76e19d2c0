#!/usr/bin/env python3
"""Runs a command until standard input closes, then stops it: the tests' leash on nginx.

    python3 watchdog.py COMMAND [ARGUMENTS...]

The test process starts this with a pipe as standard input and keeps the other end. When
that end closes (the test process ended, crashed or was killed), the command gets SIGTERM
(nginx: a fast shutdown, which does not wait for open connections), then SIGKILL after 5
seconds. SIGTERM or SIGINT to this script do the same at once. The script exits with
the command's status (128 + the signal if a signal ended it), and at once when the command
exits by itself (nginx could not bind its port, say). Python 3 standard library only.
"""

import os
import signal
import subprocess
import sys
import threading


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: watchdog.py COMMAND [ARGUMENTS...]\n")
        return 2
    # A child inherits the signal mask of the thread that started it; a Swift test's
    # threads block SIGTERM and more: take every signal again, for this script and nginx.
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL)
    stopping = threading.Event()

    def stop():
        if stopping.is_set():
            return
        stopping.set()
        for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, None)):
            try:
                child.send_signal(sig)
            except ProcessLookupError:
                return
            try:
                child.wait(timeout=grace)
                return
            except subprocess.TimeoutExpired:
                continue

    def watch_stdin():
        try:
            while os.read(0, 4096):
                pass
        except OSError:
            pass
        stop()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: threading.Thread(target=stop, daemon=True).start())
    threading.Thread(target=watch_stdin, daemon=True).start()
    status = child.wait()
    return 128 - status if status < 0 else status


if __name__ == "__main__":
    sys.exit(main())

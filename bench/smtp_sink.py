"""A local SMTP server for the benchmarks: accepts every message at once and counts them.

`python -m bench.smtp_sink PORT` prints "ready", answers "count" on stdin with the
number of messages received, and stops when stdin closes.
"""

from __future__ import annotations

import sys
import threading

from aiosmtpd.controller import Controller


class Sink:
    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope) -> str:
        with self.lock:
            self.count += 1
        return "250 OK"


def main() -> None:
    port = int(sys.argv[1])
    sink = Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    print("ready", flush=True)
    try:
        for line in sys.stdin:
            if line.strip() == "count":
                print(sink.count, flush=True)
    finally:
        controller.stop()


if __name__ == "__main__":
    main()

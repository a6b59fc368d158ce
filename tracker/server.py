"""The gunicorn worker `tracker serve` runs: threads, fed only requests that have arrived whole.

gunicorn's threaded worker (gthread) waits in its event loop only until a
connection is readable, then hands it to a thread that blocks reading the rest:
a client that sends half a request and stalls holds that thread. This worker
reads each request in the event loop instead, without blocking, until its head
and body (up to `body_limit`) are in memory, and only then hands it to a
thread, which parses it from memory. Idle and slow clients cost a socket and a
buffer, never a thread; a client that has not sent its whole request within
`REQUEST_TIMEOUT` is disconnected.

A request the parser refuses (a request line or headers over gunicorn's limits,
a malformed line or header) is answered as the API answers every refusal,
`{"errors": {"request": ...}}` in JSON, instead of gunicorn's HTML page: the path
is not read yet, so it cannot tell an API call from a page.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import json
import re
import socket
import time
from functools import partial
from selectors import EVENT_READ

from gunicorn import util
from gunicorn.http.errors import (
    InvalidHeader,
    InvalidHeaderName,
    InvalidHTTPVersion,
    InvalidRequestLine,
    InvalidRequestMethod,
    InvalidSchemeHeaders,
    LimitRequestHeaders,
    LimitRequestLine,
    ObsoleteFolding,
)
from gunicorn.workers.gthread import TConn, ThreadWorker

# Seconds a client has to send a whole request, counted from its first byte or,
# on a new connection, from the connection: a browser's spare connection waits.
REQUEST_TIMEOUT = 60
# Seconds a thread waits on a silent client: a body too large to buffer, a slow reader.
SOCKET_TIMEOUT = 30
# A head longer than this goes to gunicorn's parser as it is, which refuses it.
HEAD_LIMIT = 128 * 1024
READ_SIZE = 64 * 1024

_CONTENT_LENGTH = re.compile(rb"\r\ncontent-length[ \t]*:[ \t]*(\d+)[ \t]*(?=\r\n)", re.IGNORECASE)
_CHUNKED = re.compile(rb"\r\ntransfer-encoding[ \t]*:[^\r\n]*chunked", re.IGNORECASE)
_EXPECT_CONTINUE = re.compile(rb"\r\nexpect[ \t]*:[ \t]*100-continue[ \t]*(?=\r\n)", re.IGNORECASE)
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"

# What the parser refuses: the status, its reason, and what the answer says. The rest
# (an unsupported transfer coding, a forbidden proxy line...) keeps gunicorn's answer.
MALFORMED = (400, "Bad Request", "the request is not well-formed HTTP: {error}")
REFUSED = {
    LimitRequestLine: (414, "URI Too Long", "the URL is longer than the server reads: {error}"),
    LimitRequestHeaders: (
        431,
        "Request Header Fields Too Large",
        "the headers are more or larger than the server reads: {error}",
    ),
    InvalidRequestLine: MALFORMED,
    InvalidRequestMethod: MALFORMED,
    InvalidHTTPVersion: MALFORMED,
    InvalidHeader: MALFORMED,
    InvalidHeaderName: MALFORMED,
    ObsoleteFolding: MALFORMED,
    InvalidSchemeHeaders: MALFORMED,
}


def refusal(exc: Exception) -> bytes | None:
    """Return the whole HTTP answer to a request the parser refused, or None for gunicorn's."""
    found = next((answer for kind, answer in REFUSED.items() if isinstance(exc, kind)), None)
    if found is None:
        return None
    status, reason, text = found
    body = json.dumps({"errors": {"request": text.format(error=exc)}}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


def request_complete(data: bytes, body_limit: int) -> bool:
    """Return whether `data` holds a whole request, or as much as is worth buffering."""
    head_end = data.find(b"\r\n\r\n")
    if head_end < 0:
        return len(data) > HEAD_LIMIT
    head = data[: head_end + 2]
    body = len(data) - head_end - 4
    if _CHUNKED.search(head):
        # The last chunk is empty ("0", CRLF, no trailers, CRLF); a false end only
        # means the thread reads the rest, as gthread itself does.
        return data.endswith(b"\r\n0\r\n\r\n") or body >= body_limit
    lengths = _CONTENT_LENGTH.findall(head)
    if len(lengths) != 1:
        # No body, or a malformed one that the parser refuses.
        return True
    length = int(lengths[0])
    # A body over the limit goes to the app at once: it answers 413 without buffering it.
    return body >= length or length > body_limit


def answer_expect_continue(data: bytearray) -> bool:
    """Drop `Expect: 100-continue` from a whole head in `data`; return whether it was there.

    The client waits for "100 Continue" before it sends the body that this
    worker waits for: the worker answers it, and gunicorn must not again.
    """
    head_end = data.find(b"\r\n\r\n")
    if head_end < 0:
        return False
    head, found = _EXPECT_CONTINUE.subn(b"", bytes(data[: head_end + 2]))
    if found:
        data[: head_end + 2] = head
    return bool(found)


class BufferingWorker(ThreadWorker):
    """gthread whose threads run only requests that have arrived whole."""

    # The largest body buffered in memory; `tracker serve` sets the app's MAX_CONTENT_LENGTH.
    body_limit = 2 * 1024 * 1024

    def init_process(self) -> None:
        # Connections still arriving, each with its deadline (time.monotonic()).
        self.arriving: dict[TConn, float] = {}
        super().init_process()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        # The app, its modules and its caches live as long as the worker: frozen,
        # the collector's full passes no longer walk them on every request's garbage.
        gc.collect()
        gc.freeze()

    def accept(self, server, listener) -> None:
        try:
            sock, client = listener.accept()
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        conn = TConn(self.cfg, sock, client, server)
        self.nr_conns += 1
        with self._lock:
            self._await_request(conn)
            self.poller.register(conn.sock, EVENT_READ, partial(self._read_request, conn))

    def on_client_socket_readable(self, conn: TConn, client: socket.socket) -> None:
        # A kept-alive connection starts its next request: buffer that one too.
        with self._lock:
            try:
                self._keep.remove(conn)
            except ValueError:
                return  # closed as idle meanwhile
            self._await_request(conn)
            self.poller.modify(client, EVENT_READ, partial(self._read_request, conn))
        self._read_request(conn, client)

    def _await_request(self, conn: TConn) -> None:
        conn.pending = bytearray()
        self.arriving[conn] = time.monotonic() + REQUEST_TIMEOUT

    def _read_request(self, conn: TConn, client: socket.socket) -> None:
        data: bytes | None
        try:
            data = conn.sock.recv(READ_SIZE)
        except (BlockingIOError, InterruptedError):
            data = None
        except OSError:
            data = b""
        with self._lock:
            if conn not in self.arriving:
                return
            # Bytes the parser holds already (a pipelined request) go to a thread as they are.
            leftover = conn.parser is not None and conn.parser.unreader.buf.tell()
            if data is None and not leftover:
                return
            if data:
                conn.pending += data
                if not leftover and not request_complete(conn.pending, self.body_limit):
                    if answer_expect_continue(conn.pending):
                        self._send_continue(conn)
                    return
            del self.arriving[conn]
            self.poller.unregister(client)
        if data == b"":
            # Gone before sending a whole request.
            self.nr_conns -= 1
            conn.close()
            return
        self.enqueue_req(conn)

    def finish_request(self, fs) -> None:
        super().finish_request(fs)
        conn = fs.conn
        with self._lock:
            pipelined = conn in self._keep and conn.parser.unreader.buf.tell()
        if pipelined:
            # No readable event announces a request that was read with the last one.
            self.on_client_socket_readable(conn, conn.sock)

    def _send_continue(self, conn: TConn) -> None:
        # A client gone meanwhile: the next read says so.
        with contextlib.suppress(OSError):
            conn.sock.send(CONTINUE)

    def enqueue_req(self, conn: TConn) -> None:
        conn.init()
        conn.sock.settimeout(SOCKET_TIMEOUT)
        pending = getattr(conn, "pending", b"")
        if pending:
            conn.parser.unreader.unread(bytes(pending))
            conn.pending = bytearray()
        self._wrap_future(self.tpool.submit(self.handle, conn), conn)

    def handle_error(self, req, client, addr, exc) -> None:
        answer = refusal(exc)
        if answer is None:
            super().handle_error(req, client, addr, exc)
            return
        self.log.warning("Invalid request from ip=%s: %s", (addr or ("", -1))[0], exc)
        try:
            util.write_nonblock(client, answer)
        except Exception:
            self.log.debug("Failed to send error message.")

    def murder_keepalived(self) -> None:
        super().murder_keepalived()
        now = time.monotonic()
        with self._lock:
            late = [conn for conn, deadline in self.arriving.items() if deadline <= now]
            for conn in late:
                del self.arriving[conn]
                self.poller.unregister(conn.sock)
        for conn in late:
            self.nr_conns -= 1
            conn.close()

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
is not read yet, so it cannot tell an API call from a page. It says the limit in
plain words, in the language the head's Accept-Language prefers (as the app
chooses one), without gunicorn's own English.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import json
import re
import socket
import threading
import time
from dataclasses import dataclass
from functools import partial
from selectors import EVENT_READ
from typing import Any

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
from gunicorn.http.message import DEFAULT_MAX_HEADERFIELD_SIZE, MAX_HEADERS
from gunicorn.workers.gthread import TConn, ThreadWorker
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header

from tracker.i18n import DEFAULT_LOCALE, LOCALES, N_, grouped, msg, translate

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
_ACCEPT_LANGUAGE = re.compile(rb"\r\naccept-language[ \t]*:[ \t]*([^\r\n]*)", re.IGNORECASE)
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"

# What the parser refuses: the status, its reason, and what the answer says. The rest
# (an unsupported transfer coding, a forbidden proxy line...) keeps gunicorn's answer.
MALFORMED = (400, "Bad Request")
REFUSED = {
    LimitRequestLine: (414, "URI Too Long"),
    LimitRequestHeaders: (431, "Request Header Fields Too Large"),
    InvalidRequestLine: MALFORMED,
    InvalidRequestMethod: MALFORMED,
    InvalidHTTPVersion: MALFORMED,
    InvalidHeader: MALFORMED,
    InvalidHeaderName: MALFORMED,
    ObsoleteFolding: MALFORMED,
    InvalidSchemeHeaders: MALFORMED,
}
NOT_HTTP = N_("the request is not well-formed HTTP")


@dataclass(frozen=True)
class HeaderLimits:
    """How many header lines the parser reads, and how long each may be, in bytes."""

    fields: int = 100
    field_size: int = DEFAULT_MAX_HEADERFIELD_SIZE

    @classmethod
    def of(cls, cfg: Any) -> HeaderLimits:
        """Return the limits gunicorn's parser applies with the settings `cfg`."""
        fields = cfg.limit_request_fields
        size = cfg.limit_request_field_size
        return cls(
            fields if 0 < fields <= MAX_HEADERS else MAX_HEADERS,
            size if size > 0 else DEFAULT_MAX_HEADERFIELD_SIZE,
        )


def _problem(exc: Exception, limits: HeaderLimits) -> str:
    """Return what is wrong with a request the parser refused, in words marked for translation."""
    if isinstance(exc, LimitRequestLine):
        return msg(
            "the URL is longer than the server reads: at most %(most)s bytes for the method,"
            " URL and HTTP version together",
            most=grouped(exc.max_size),
        )
    if isinstance(exc, LimitRequestHeaders):
        return msg(
            "the headers are more or larger than the server reads: at most %(count)s headers,"
            " each at most %(size)s bytes",
            count=grouped(limits.fields),
            size=grouped(limits.field_size),
        )
    return NOT_HTTP


def head_locale(head: bytes, default: str = DEFAULT_LOCALE) -> str:
    """Return the language a raw request head's Accept-Language prefers, as the app picks it."""
    found = _ACCEPT_LANGUAGE.search(head)
    if found is None:
        return default
    accepted = parse_accept_header(found.group(1).decode("latin-1"), LanguageAccept)
    return accepted.best_match(LOCALES) or default


def refusal(
    exc: Exception, locale: str = DEFAULT_LOCALE, limits: HeaderLimits = HeaderLimits()
) -> bytes | None:
    """Return the whole HTTP answer to a request the parser refused, or None for gunicorn's."""
    found = next((answer for kind, answer in REFUSED.items() if isinstance(exc, kind)), None)
    if found is None:
        return None
    status, reason = found
    text = translate(_problem(exc, limits), locale)
    body = json.dumps({"errors": {"request": text}}).encode()
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


# The head of the request each thread is handling.
_handling = threading.local()


class BufferingWorker(ThreadWorker):
    """gthread whose threads run only requests that have arrived whole."""

    # The largest body buffered in memory; `tracker serve` sets the app's MAX_CONTENT_LENGTH.
    body_limit = 2 * 1024 * 1024
    # The language of a refusal whose head prefers none the app speaks; `tracker serve`
    # sets the app's TRACKER_DEFAULT_LOCALE.
    default_locale = DEFAULT_LOCALE

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
        # The head alone is kept, for the language of a refusal: a body may be megabytes.
        head_end = pending.find(b"\r\n\r\n")
        conn.head = bytes(pending[: head_end if head_end >= 0 else HEAD_LIMIT])
        if pending:
            conn.parser.unreader.unread(bytes(pending))
            conn.pending = bytearray()
        self._wrap_future(self.tpool.submit(self.handle, conn), conn)

    def handle(self, conn: TConn) -> Any:
        # handle_error, which this thread calls, is given the socket, not the connection.
        _handling.head = getattr(conn, "head", b"")
        return super().handle(conn)

    def handle_error(self, req, client, addr, exc) -> None:
        locale = head_locale(getattr(_handling, "head", b""), self.default_locale)
        answer = refusal(exc, locale, HeaderLimits.of(self.cfg))
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
